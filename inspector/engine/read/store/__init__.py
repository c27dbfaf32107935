"""The store as a whole: Store (the files of one store opened read-only, owned), answers (the face's verbs over a
whole Store, each handing a helper the Store's parts), recovery, the census of its folders, strays, load checks
and retention. May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or
above)."""
