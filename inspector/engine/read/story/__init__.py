"""The story of one message: every record of the store that belongs to it, each with its role, and each consumer
group's progress over the queues involved (``story.py``).
May import: engine.model, parsers and the other read rooms (never engine.present or above, never the Store)."""
