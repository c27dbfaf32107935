"""Writing: new stores and their files (writer, encode, message specs and flow, new store, staging,
segments, broker files, the DLedger log and stream, timer flow). May import: engine.model, engine.scan,
engine.read, engine.present, parsers and the other maintain rooms."""
