"""Config and offsets: the store root and its config files, the broker settings read from them, RocksDB
config, the consumer and delay offsets. May import: engine.model, engine.scan, parsers and the other read rooms
(never engine.present or above)."""
