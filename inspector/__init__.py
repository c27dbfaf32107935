"""rmq-inspect: the store engine and its front ends (CLI, terminal UI, Spark jobs)."""

DISTRIBUTION = "rmq-inspect"


def version() -> str:
    """The installed package's version (from its metadata, as ``pip show rmq-inspect`` gives it)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _installed

    try:
        return _installed(DISTRIBUTION)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
