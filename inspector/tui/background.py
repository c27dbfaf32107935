"""Walks the UI runs in thread workers, built from engine calls only (no Textual here).

Each takes a ``cancelled`` callable and a ``progress`` callback so the worker running it can report and stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from inspector.engine import GrepHit, Message, MessageBatch, StoreError, segment_batches


class Cancelled(Exception):
    """Raised from a progress callback to stop an engine walk that has no cancel hook of its own."""


def matching_offsets(store, matches: Callable[[Message], bool], *, topic: str | None = None,
                     queue: int | None = None, begin: int | None = None, end: int | None = None,
                     needs_properties: bool = False) -> Iterator[tuple[list[int], int]]:
    """Physical offsets of the messages ``matches`` accepts, in commitlog order, in batches: (offsets, done).

    Runs of clean records come from the engine as columnar batches (``segment_batches``): topic, queue and
    time are tested on whole columns, and a record is decoded only when ``needs_properties`` (tag, key)
    asks for it. ``done`` is how far into the log (bytes from its start) the walk got.
    """
    start = store.min_offset
    for seg in store.segments:
        for item in segment_batches(store, seg, check_crc=False):
            if isinstance(item, MessageBatch):
                if not len(item):
                    continue
                mask = np.ones(len(item), dtype=bool)
                if topic is not None:
                    codes = item.column("topic")
                    wanted = [c for c, name in enumerate(item.topics) if name == topic]
                    mask &= np.isin(codes, wanted) | (codes < 0)
                if queue is not None:
                    mask &= item.column("queue_id") == queue
                if begin is not None:
                    mask &= item.column("store_timestamp") >= begin
                if end is not None:
                    mask &= item.column("store_timestamp") <= end
                picked = np.nonzero(mask)[0]
                codes = item.column("topic")
                if needs_properties or (topic is not None and (codes[picked] < 0).any()):
                    picked = [int(i) for i in picked if matches(item.message(int(i)))]
                offsets = item.physical_offsets[picked].tolist()
                yield offsets, seg.start_offset + item.end - start
            elif isinstance(item, Message):
                yield ([item.physical_offset] if matches(item) else []), item.end_offset - start


def store_hosts(store, per_segment: int = 50) -> list[str]:
    """The broker addresses (STOREHOSTADDRESS) the records of this store carry, sampled at each segment start."""
    hosts: list[str] = []
    for seg in store.segments:
        try:
            for n, entry in enumerate(store.entries(seg.start_offset, check_crc=False)):
                if n >= per_segment or entry.file != seg.file:
                    break
                if isinstance(entry, Message):
                    host = str(entry.store_host)
                    if host not in hosts:
                        hosts.append(host)
                    break
        except StoreError:
            continue
    return hosts


def key_hits(store, key: str, *, cancelled: Callable[[], bool],
             progress: Callable[[int, int], None]) -> tuple[list[GrepHit], str]:
    """The messages whose KEYS hold ``key`` exactly or whose UNIQ_KEY is ``key``, from every topic's index (no
    scan of the log), in log order, as grep hits of the keys field; with the note saying how they were found
    (and what the indexes do not cover, or that the walk was stopped)."""
    topics = store.topics()
    found: dict = {}  # physical offset -> the first KeyHit (store.lookup_key) there
    stopped = None
    for i, topic in enumerate(topics):
        if cancelled():
            stopped = f"stopped on request after {i:,} of {len(topics):,} topics"
            break
        for hit in store.lookup_key(topic, key, scan=False):
            found.setdefault(hit.message.physical_offset, hit)
        progress(i + 1, len(topics) + 1)
    if stopped is None:
        for hit in store.lookup_unique_key(key, scan=False):
            found.setdefault(hit.message.physical_offset, hit)
    note = f"every topic's index ({len(topics):,} topics) asked for the exact key {key!r} (KEYS or UNIQ_KEY)"
    for extra in (stopped, store.index_coverage_note(scan=False)):
        if extra:
            note += f"; {extra}"
    return [_key_hit(found[o], key) for o in sorted(found)], note


def _key_hit(hit, key: str) -> GrepHit:
    """An index hit shown as grep shows a keys match: the property holding the key, the key in its context."""
    name = "UNIQ_KEY" if hit.matched_by == "unique_key" else "KEYS"
    value = hit.message.properties.get(name, key)
    words = value.split(" ")  # KEYS: the keys separated by spaces (a UNIQ_KEY is one word)
    if key not in words:  # an index hit whose record no longer names the key (not expected): the key alone
        return GrepHit(hit.message, ("keys",), name, 0, "", key, "")
    at = sum(len(w) + 1 for w in words[: words.index(key)])
    before, after = value[:at], value[at + len(key):]
    return GrepHit(hit.message, ("keys",), name, at, before, key, after)
