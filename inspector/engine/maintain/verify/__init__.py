"""Verify: a store checked against what dispatch would have written (verify) and the checks per format
(queues, batch queues, index, timer, DLedger, lmq, coverage, cross checks). May import: engine.model,
engine.scan, engine.read, engine.present, parsers and the other maintain rooms."""
