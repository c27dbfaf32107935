"""The ``rmq-inspect`` command line: rich tables by default, JSON with --json."""
