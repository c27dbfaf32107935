"""The engine's one Java CRC32 (``UtilAll.crc32``), the fastest available: ISA-L when importable, else zlib.

``parsers.java.rocketmq_crc32`` stays the specification (plain zlib, the reference tests compare
against); the engine checks bodies and ``__CRC32#`` properties with :func:`rocketmq_crc32` here, and the
numba kernels call the same C function, whose address :func:`crc_library` finds.
"""

from __future__ import annotations

import zlib


def crc_library() -> tuple[str, int | None]:
    """(name, address) of a C ``crc(uint32 init, const void *buf, size_t len)``: ISA-L, else zlib."""
    import ctypes  # here: ctypes.util imports subprocess, which a command that runs no kernel does not need
    import ctypes.util

    try:
        import isal.isal_zlib as isal_zlib

        fn = ctypes.CDLL(isal_zlib.__file__).crc32_gzip_refl
        return "isal", ctypes.cast(fn, ctypes.c_void_p).value
    except (ImportError, OSError, AttributeError):
        pass
    for candidate in (zlib.__file__ if hasattr(zlib, "__file__") else None, ctypes.util.find_library("z")):
        if not candidate:
            continue
        try:
            fn = ctypes.CDLL(candidate).crc32
            return "zlib", ctypes.cast(fn, ctypes.c_void_p).value
        except (OSError, AttributeError):
            continue
    return "none", None


try:
    from isal.isal_zlib import crc32 as _py_crc32

    CRC_BACKEND = "isal"
except ImportError:  # pragma: no cover - isal is an optional speed-up
    _py_crc32 = zlib.crc32
    CRC_BACKEND = "zlib"


def rocketmq_crc32(data) -> int:
    """``UtilAll.crc32`` (CRC-32 & 0x7FFFFFFF, 0 for empty data) with the fastest CRC available."""
    return _py_crc32(data) & 0x7FFFFFFF if len(data) else 0

