"""rmq-inspect: the store engine and its front ends (CLI, terminal UI, Spark jobs)."""
