"""The read side: a store opened read-only over mmap and everything read from it (segments, records, consume
queues, index files, config, recovery, hex layout, JSON views). Never opens a file for writing, renames or
deletes anything; tests/test_import_layers.py holds it to that."""
