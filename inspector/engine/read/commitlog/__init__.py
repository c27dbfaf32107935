"""The commit log: the store's record log read over mmap (mapped files, segment files and their summaries),
records walked, tailed, followed and read carefully past damage, bodies decompressed, the journal, parallel scans.
May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or above)."""
