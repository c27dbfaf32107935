"""Dispatch and rebuild: what the broker's dispatch writes for each record (consume queue, batch queue,
index and timer builders) and the rebuild of those files from the commit log, whole (``rebuild``) or as tasks
a parallel runner schedules (``tasks``). May import: engine.model,
engine.scan, engine.read, engine.present, parsers and the other maintain rooms."""
