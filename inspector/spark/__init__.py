"""Bulk jobs over RocketMQ stores on Apache Spark: export, stats, verify, keyindex, rebuild-cq (issue 6).

The driver plans one task per commitlog segment (:mod:`inspector.spark.plan`); executors open the store
read-only with our own engine and walk their segment (:mod:`inspector.spark.tasks`); the jobs
(:mod:`inspector.spark.jobs`) are ``main(argv)`` plus pure DataFrame transforms. One function builds the
session (:mod:`inspector.spark.session`) and one module holds every Spark schema
(:mod:`inspector.spark.schemas`).

Importing this package does not import pyspark: ``inspector.spark.keyindex.lookup`` reads a key index with
pyarrow when it is installed and loads Spark only as a fallback.
"""
