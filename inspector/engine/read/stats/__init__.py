"""Statistics of the commitlog (``rmq-inspect stats``): the records counted by one key over the bulk kernel's
columnar batches, with shares, size buckets, rate, compression ratio and a retention preview (stats).
May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or above)."""
