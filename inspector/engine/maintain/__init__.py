"""The maintenance side, the only room that writes: new stores (writer), the broker's dispatch, rebuild of
consume queues and index files, crash-safe staging, and verify (which checks a store against what dispatch
would have written)."""
