"""Consumer groups: each group the store knows (its offsets in every source the broker may keep them, its
subscription-group config), its queues' committed offsets against the queues, and the messages on either side of
them. May import: engine.model, engine.scan, parsers and the other read rooms (never engine.present or above)."""
