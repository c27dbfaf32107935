"""The maintenance side, the only room that writes, one subroom per job:

    write/    new stores and their files: writer, encode, message specs, staging, segments, DLedger log
    rebuild/  the broker's dispatch (consume queue, batch queue, index, timer builders) and rebuild
    verify/   a store checked against what dispatch would have written, one module per format

May import engine.model, engine.scan, engine.read, engine.present and parsers; never engine.workshop."""
