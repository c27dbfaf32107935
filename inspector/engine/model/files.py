"""One guarded open for every file the tool reads that is not mapped: regular files only, bounded sizes and lines.

What a user names (``--broker-config``, ``write``'s input, an answers file) and the small files of a store
(config JSON, DLedger's checkpoint, the in-place rebuild journal) are read here; store data is mapped by
``read.commitlog.mapped.MappedFile``, which asks :func:`refusal` the same question. Three promises:

* no open blocks: a FIFO opened for reading waits for a writer forever, so every open is ``O_NONBLOCK`` and
  the file's kind is checked with ``fstat`` on the open descriptor (no race between a check and the open);
* only regular files are read: a FIFO, a device (``/dev/zero`` never ends, ``/dev/urandom`` neither), a
  socket or a directory where a file belongs is refused with one line naming what it is;
* nothing is read whole without a bound: each kind of file has a size limit, and line-oriented input is read
  a line at a time, each line at most a given length (``/dev/zero`` piped to stdin holds no newline at all).

Refusals are :class:`UnfitFile` (an ``OSError``, so a caller's ``except OSError`` still answers them); the
caller turns them into its own answer: ``BadInput`` (exit 2) for a file the user gave, ``StoreError`` (exit 3)
or a finding for a store file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class UnfitFile(OSError):
    """A file this tool will not read: no regular file, larger than its kind may be, or a line too long."""

    def __init__(self, reason: str, filename: str | None = None) -> None:
        super().__init__(reason)
        self.strerror = reason  # what every `e.strerror` reader shows
        self.filename = filename

    def __str__(self) -> str:
        return self.strerror


def file_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a FIFO", "a directory", ...)."""
    return next((name for test, name in _KINDS if test(mode)), "no regular file")


def refusal(st: os.stat_result) -> str | None:
    """Why a file with this stat is not read (None: a regular file, read it)."""
    if stat.S_ISREG(st.st_mode):
        return None
    return f"not a regular file ({file_kind(st.st_mode)})"


def open_regular(path: str | Path, limit: int | None = None, what: str = "this file") -> BinaryIO:
    """``path`` opened for reading (binary), once it is known to be a regular file of at most ``limit`` bytes
    (None: any size, for a file read a line or a chunk at a time). ``what`` names the kind in the size refusal
    ("a broker.conf"). Raises :class:`UnfitFile`, or the ``OSError`` of the open itself."""
    # NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; a regular file ignores the flag
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        why = refusal(st)
        if why is None and limit is not None and st.st_size > limit:
            why = f"{st.st_size:,} bytes is too large for {what} (at most {limit:,})"
        if why is not None:
            raise UnfitFile(why, str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path, limit: int, what: str = "this file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`); a file that grew past
    the limit while being read is refused too."""
    with open_regular(path, limit, what) as f:
        size = os.fstat(f.fileno()).st_size
        data = f.read(min(size, limit) + 1)  # sized by the file, not the limit: read(n) allocates n bytes at once
        if len(data) > limit:
            raise UnfitFile(f"more than {limit:,} bytes is too large for {what}", str(path))
        return data


def bounded_lines(stream: BinaryIO, limit: int) -> Iterator[bytes]:
    """The lines of ``stream`` (each with its newline), each at most ``limit`` bytes before the newline;
    :class:`UnfitFile` naming the line (1-based) at the first longer one. Memory is bounded by ``limit``
    whatever the stream is (a pipe from ``/dev/zero`` included)."""
    number = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        number += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise UnfitFile(f"line {number}: longer than {limit:,} bytes")
        yield line


# a JSON file a user names (write's --consumer-offsets, an exercises answers file): a config file's bound
MAX_JSON_BYTES = 64 << 20


def read_json(path: str | Path, what: str, limit: int = MAX_JSON_BYTES) -> object:
    """A JSON file through the guarded read, parsed within the config files' limits (parsers/fastjson.py:
    nesting at most 200 levels, numbers at most 64 characters, UTF-8; fastjson's bare integer keys too).
    ``OSError`` (``UnfitFile``) when it cannot be read, ``ValueError`` saying where it does not parse."""
    from parsers.fastjson import loads  # here: only the callers that read a JSON file pay for the parser

    return loads(read_regular(path, limit, what))
