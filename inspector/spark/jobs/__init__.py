"""The Spark jobs: each module is ``main(argv, spark=None)`` plus pure DataFrame transforms."""

JOBS = ("export", "stats", "verify", "keyindex", "rebuild-cq")
