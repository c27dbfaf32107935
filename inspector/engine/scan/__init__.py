"""The fast paths over commitlog bytes: struct decoding of one record and the numpy/numba bulk kernels (walk,
decode, CRC, verify runs). Every result here is held equal to the construct schemas in ``parsers`` by tests.
Reads buffers it is given; opens no file. May import engine.model, parsers and numpy/numba."""
