"""Searching the commitlog (``rmq-inspect grep``): a pattern compiled for a byte prefilter over the mapped segments
(pattern), and the search itself, decoding only the records around the prefilter's hits (grep).
May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or above)."""
