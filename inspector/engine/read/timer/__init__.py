"""The timer store: timerwheel and timerlog read (timerstore) and the links between them (timerlinks).
May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or above)."""
