"""The terminal UI of rmq-inspect (Textual). It shows what the engine hands out and never parses bytes itself."""
