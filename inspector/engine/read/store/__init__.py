"""The store as a whole: Store (the files of one store opened read-only), recovery, the census of
its folders, strays, load checks and retention. May import: engine.model, engine.scan, parsers and the other
read rooms (never engine.present or above)."""
