"""The consume queues: plain (consumequeue), batch (batchconsumequeue) and RocksDB ones, the store's queue
list, the queue probe and the light message queues (lmq). May import: engine.model, engine.scan, parsers and the
other read rooms (never engine.present or above)."""
