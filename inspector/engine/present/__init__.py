"""Presentation: code that shapes what was read into answers for the front ends (JSON views, bulk JSON
lines, the overview, hex layout regions, the survey, timer views), rather than reading a format itself.
May import: engine.model, engine.scan, engine.read and parsers; engine.read never imports it (the rooms are
ordered model < scan < read < present < maintain < workshop, tests/test_import_layers.py). Never writes."""
