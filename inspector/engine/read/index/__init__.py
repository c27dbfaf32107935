"""The index files: the hash index read (indexfile), ranges, slots and their collisions, keys, key scans
and the store's key lookups. May import: engine.model, engine.scan, parsers and the other read rooms (never
engine.present or above)."""
