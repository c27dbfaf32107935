"""Two stores compared (``rmq-inspect diff``): commitlog byte ranges aligned by physical offset, consume queues,
checkpoint and config files. May import: engine.model, parsers and the other read rooms (never engine.present or
above); its helpers take CommitLogs, StoreQueues and roots, never the Store (answers.store_diff does)."""
