"""Consumer offsets written: the new offsets file a planned reset (``offsets plan --out``) writes, beside the store,
never in it. May import: engine.model, engine.read and parsers."""
