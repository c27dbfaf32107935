"""One module per screen of the terminal UI."""
