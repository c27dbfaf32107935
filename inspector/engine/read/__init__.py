"""The read side: a store opened read-only over mmap and everything read from it, one subroom per on-disk format:

    commitlog/  the record log: mapped files, segments, records walked, tailed, followed, bodies, journal
    queues/     consume queues: plain, batch, RocksDB; the store's queue list, the probe, lmq
    index/      index files: reader, ranges, slots, collisions, keys, key lookups
    dledger/    the DLedger log and its members
    timer/      the timer store: timerwheel, timerlog and their links
    config/     the store root, config files, settings, RocksDB config, offsets
    store/      the store as a whole: Store, its verbs (answers), recovery, census, strays, load checks, retention

Store opens and owns the files (its CommitLog, StoreQueues, KeyIndex, config) and hands each helper the parts it
reads; no module here but store/store.py and store/answers.py imports or takes a Store
(tests/inspector/engine/read/store/test_store_owns.py).

May import engine.model, engine.scan, parsers and each other; never engine.present, maintain or workshop.
Never opens a file for writing, renames or deletes anything; tests/test_import_layers.py holds it to that."""
