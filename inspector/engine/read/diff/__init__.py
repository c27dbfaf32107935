"""Two stores compared: commitlog byte ranges aligned by physical offset, consume queues, config files."""
