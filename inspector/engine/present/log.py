"""The commitlog as the views ask for it: messages in log order with the problems that precede them, one
segment's records in columnar batches, a running broker followed, the log's segment size.

The views call these instead of walking ``store.commitlog``: what the log's parts are (folders, DLedger entry
folders, the segment list) stays the engine's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from inspector.engine.model.records import Blank, Message, Problem, Segment
from inspector.engine.read.commitlog.follow import follow
from inspector.engine.scan.batch import MessageBatch


def log_order(store, start: int | None = None, *, topic: str | None = None,
              batch_size: int | None = None) -> Iterator[Message | Problem | Blank | MessageBatch]:
    """The log from ``start`` (None: its beginning) in commitlog order, after what the walk cannot see: missing
    or cut segments, then the commitlog/ entries no reader reads (as Problems).

    Without ``batch_size``: the Messages (of ``topic`` only, when given) and the Problems of the walk. With it:
    runs of clean records as columnar MessageBatches of at most that many records, and every other entry
    (Message, Blank, Problem) between them, topic not applied (``json_lines`` filters).
    """
    yield from store.commitlog.problems  # a missing or cut segment: the walk below cannot see what is not there
    yield from (p for p in store.unknown_files() if p.file.startswith("commitlog/"))  # and files it skips
    if batch_size is not None:
        yield from store.commitlog.batches(start, batch_size=batch_size)
        return
    for entry in store.entries(start):
        if isinstance(entry, Problem):
            yield entry
        elif isinstance(entry, Message) and (topic is None or entry.topic == topic):
            yield entry


def segment_batches(store, segment: Segment, *, check_crc: bool = True
                    ) -> Iterator[MessageBatch | Blank | Problem | Message]:
    """One segment walked whole: runs of clean records as columnar MessageBatches (positions in the segment) and
    every other record between them, in log order (expanding each batch gives exactly ``store.entries()``)."""
    return store.commitlog.segment_batches(segment, check_crc=check_crc)


def segment_entries(store, index: int, *, check_crc: bool = True) -> Iterator[Message | Blank | Problem]:
    """The entries of segment ``index`` of ``store.segments``, exactly as ``store.entries()`` sees them there."""
    return store.commitlog.segment_entries(index, check_crc=check_crc)


def segment_at(store, offset: int) -> Segment | None:
    """The commitlog segment holding physical offset ``offset``; None when none does."""
    return store.commitlog.segment_for(offset)


def follow_log(store, start: int | None, *, interval: float = 0.2, idle_timeout: float | None = None,
               stop: Callable[[], bool] | None = None) -> Iterator[Message | Problem]:
    """Complete messages of this store's log as a running broker writes them, from ``start`` (read-only polling;
    see ``follow`` for when it ends). ``stop`` is asked after each poll (the TUI's follow mode hands over what the
    poll found there, and stops when its worker is cancelled)."""
    commitlog = store.commitlog
    return follow(store.root, start, interval=interval, idle_timeout=idle_timeout, stop=stop,
                  segment_size=commitlog.segment_size or None, directories=commitlog.folders,
                  entry_folders=commitlog.entry_folders)


def segment_size(store) -> int:
    """The commitlog's segment size in bytes: as configured, else inferred from its files (0: not known)."""
    return store.commitlog.segment_size
