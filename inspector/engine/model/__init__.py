"""The engine's vocabulary, shared by every room: the frozen records it hands out and what a record's fields mean
(``meaning``), the one Java CRC32 every check uses (``crc``), its errors, time budgets, the system topic names,
and the store geometry that is broker configuration rather than file content. Imports parsers, the stdlib and
the optional CRC library only."""
