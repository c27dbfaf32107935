"""A store's index files and key lookups: the hash-slot chains, hits past index files that cannot be trusted, unique keys."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from inspector.engine.model.bounds import decimal_name
from inspector.engine.model.budget import Budget
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.model.records import (
    ChainWalk,
    KeyHit,
    Problem,
)
from inspector.engine.model.systopics import SYSTEM_TOPICS
from inspector.engine.read.commitlog.commitlog import CommitLog
from inspector.engine.read.index.coverage import (
    IndexSpan,
    ScanLimits,
    Uncovered,
    index_spans,
    scan_range,
    uncovered_ranges,
)
from inspector.engine.read.index.index_range import header_range_problems
from inspector.engine.read.index.indexfile import IndexFileReader, is_time_matched
from inspector.engine.read.index.keyscan import covered_range, scan_for_key
from inspector.engine.read.queues.batchconsumequeue import (
    inner_messages,
    is_inner_batch,
)
from inspector.engine.read.queues.store_queues import StoreQueues
from inspector.engine.read.store.strays import INDEX_NAME_WIDTH
from parsers.indexfile import infer_geometry
from parsers.java import index_key

MAX_TIME = (1 << 63) - 1


class KeyIndex:
    """The index files under ``root`` (opened on first use, closed with :meth:`close`) and the key lookups over
    them: the records are read from ``log``, the batch consume queues of ``queues`` give the inner messages the
    broker does not index, ``log_end`` the end of the log's good records (asked only when an index file cannot
    be trusted). ``index_slots``/``index_items``: the broker's settings when given (None: from the files)."""

    def __init__(self, root: Path, log: CommitLog, queues: StoreQueues, log_end: Callable[[], int],
                 index_slots: int | None, index_items: int | None):
        self.root = root
        self.log = log
        self.queues = queues
        self.log_end = log_end
        self.index_slots = index_slots
        self.index_items = index_items
        self._index_readers: list[IndexFileReader] | None = None
        self._index_problems: list[Problem] = []
        self._range_problems: dict[str, list[Problem]] = {}  # index file -> its header range findings
        self._coverage: tuple[list[IndexSpan], list[Uncovered]] | None = None
        self._lock = threading.RLock()  # shared by threads: the readers are opened once (and closed once)
        # the scans' budget and progress for lookups asked without a budget of their own (Store.scan_limits: the
        # CLI, and story_of's budget); per thread: the web's requests and the TUI's workers share one store
        self._limits = threading.local()

    @property
    def scan_limits(self) -> ScanLimits | None:
        """The limits this thread's lookups scan under (None: no limit)."""
        return getattr(self._limits, "value", None)

    @scan_limits.setter
    def scan_limits(self, limits: ScanLimits | None) -> None:
        self._limits.value = limits

    def close(self) -> None:
        for r in self._index_readers or []:
            r.close()

    def stored_at(self, offset: int) -> int | None:
        """STORETIMESTAMP of the readable record at ``offset``; None when none is there."""
        try:
            return self.log.message_at(offset).store_timestamp
        except StoreError:
            return None

    # -- index files ------------------------------------------------------------------------------------------

    def index_files(self) -> list[IndexFileReader]:
        """Index files in name (creation) order; unreadable ones are reported in index_problems()."""
        with self._lock:
            if self._index_readers is None:
                self._index_readers = self._open_index_files()
        return self._index_readers

    def _open_index_files(self) -> list[IndexFileReader]:
        readers: list[IndexFileReader] = []
        base = self.root / "index"
        names = sorted(p.name for p in base.iterdir()
                       if decimal_name(p.name, INDEX_NAME_WIDTH) is not None) if base.is_dir() else []
        slots, items = self._index_geometry(base, names)
        for name in names:
            try:
                reader = IndexFileReader(self.root, f"index/{name}", slots, items)
            except StoreError as e:
                self._index_problems.append(Problem(e.file or f"index/{name}", e.offset or 0, e.reason, "bad-index-file"))
                continue
            self._index_problems.extend(reader.problems)
            readers.append(reader)
        return readers

    def _index_geometry(self, base: Path, names: list[str]) -> tuple[int | None, int | None]:
        """Slots and items are one broker setting for all files: the geometry most file sizes agree on.

        A single truncated file then reads with its siblings' geometry (and is reported as too short)
        instead of being unreadable.
        """
        if self.index_slots or self.index_items:
            return self.index_slots, self.index_items
        votes: Counter[tuple[int, int]] = Counter()
        for name in names:
            try:
                fitted = infer_geometry((base / name).stat().st_size)
            except OSError:
                continue
            if fitted is not None:
                votes[fitted] += 1
        if not votes:
            return None, None
        return votes.most_common(1)[0][0]

    def index_problems(self) -> list[Problem]:
        self.index_files()
        return list(self._index_problems)

    def _key_checker(self, topic: str, key: str):
        def check(phy_offset: int) -> bool | None:
            try:
                msg = self.log.message_at(phy_offset)
            except StoreError:
                return None
            return msg.topic == topic and (key == msg.unique_key or key in msg.keys)

        return check

    def index_range_problems(self, reader: IndexFileReader) -> list[Problem]:
        """Where ``reader``'s header begin/end is not what the broker wrote for its items (read once per file)."""
        found = self._range_problems.get(reader.rel)
        if found is None:
            found = self._range_problems[reader.rel] = header_range_problems(reader, self.stored_at)
        return found

    def chain(self, topic: str, key: str, begin: int = 0, end: int = MAX_TIME, limit: int | None = None,
              budget: Budget | None = None) -> list[ChainWalk]:
        """The hash-slot walk for topic#key in every index file, newest first, as the broker's query visits them.

        ``limit`` caps the items walked per file (the stop reason says so); None walks whole chains. Once
        ``budget`` runs out, the remaining files are listed with their slot only, as not searched, and the
        budget's note says why. A file whose header range is not what the broker wrote is walked whole,
        whatever the time window (its times come from that header: see :meth:`lookup_key`), and says so.
        """
        full_key = index_key(topic, key)
        walks = []
        for reader in reversed(self.index_files()):
            if budget is not None and budget.expired():
                w = reader.walk(full_key, limit=0)  # the slot only: no item is read
                walks.append(ChainWalk(w.file, w.key, w.key_hash, w.slot, w.slot_position, w.slot_value, (),
                                       "not searched", budget.note(f"walking {len(walks)} index file(s)")))
                continue
            bad_range = self.index_range_problems(reader)
            if bad_range:
                # any time the header makes of an item: no window may stop the walk (a begin of -2^63 included)
                walk = reader.walk(full_key, -(1 << 64), 1 << 64, self._key_checker(topic, key), limit)
                walks.append(replace(walk, note=f"{_untrusted_range(bad_range)}: walked whole, whatever the "
                                     "time window"))
                continue
            if not is_time_matched(reader.header, begin, end) and (begin, end) != (0, MAX_TIME):
                walk = reader.walk(full_key, begin, end, None)
                walks.append(
                    ChainWalk(walk.file, walk.key, walk.key_hash, walk.slot, walk.slot_position, walk.slot_value, (),
                              "not searched", "file time range is outside the query window")
                )
                continue
            walks.append(reader.walk(full_key, begin, end, self._key_checker(topic, key), limit))
        return walks

    # -- coverage: the log no index file covers ----------------------------------------------------------------

    def coverage(self) -> tuple[list[IndexSpan], list[Uncovered]]:
        """Each index file's span of the log, and the ranges no file covers that hold a record the broker would
        index (read once: headers, the items of a file whose header range is wrong, the records at the edges)."""
        with self._lock:
            if self._coverage is None:
                readers = self.index_files()
                untrusted = {r.rel: (start, stop) for r, start, stop in self._untrusted_ranges()}
                spans = index_spans(self.log, readers, lambda r: bool(self.index_range_problems(r)), untrusted)
                self._coverage = spans, uncovered_ranges(self.log, spans, self.log.min_offset, self.log_end)
        return self._coverage

    def uncovered(self) -> list[Uncovered]:
        return self.coverage()[1]

    def coverage_note(self, scan: bool) -> str | None:
        """What a lookup did about the log no index covers: scanned it, or (``scan`` False) left it unsearched;
        None when the index files cover the whole log."""
        gaps = self.uncovered()
        if not gaps:
            return None
        ranges = ", ".join(g.text for g in gaps)
        if scan:
            return f"searched the index files and scanned {ranges}, which no index covers"
        return f"searched the index files; {ranges} is covered by no index and was not searched (scan turned off)"

    def lookup_key(self, topic: str, key: str, begin: int = 0, end: int = MAX_TIME, scan: bool = True) -> list[KeyHit]:
        """Messages indexed under topic#key in [begin, end], hash collisions filtered out by reading the real key;
        for a BatchCQ topic also the inner messages with that key (read from its batch queues: not indexed).
        ``scan``: also read the log no index file covers (:meth:`coverage`), each hit found there marked so."""
        hits = self._indexed_hits(topic, key, begin, end)
        hits += self._scanned_hits(topic, key, begin, end, {h.message.physical_offset for h in hits})
        if scan:
            hits += self.uncovered_hits(topic, key, begin, end, {h.message.physical_offset for h in hits})
        return hits + list(self._inner_key_hits(topic, key, begin, end, set()))

    def _indexed_hits(self, topic: str, key: str, begin: int, end: int,
                      unreadable: list[tuple[str, int]] | None = None) -> list[KeyHit]:
        """What following the chains of topic#key finds (every index file that can be trusted). ``unreadable``
        collects (index file, offset) of the items with the key's hash whose record cannot be read."""
        hits: list[KeyHit] = []
        seen: set[int] = set()
        for walk in self.chain(topic, key, begin, end):
            for step in walk.steps:
                if unreadable is not None and step.hash_matches and step.key_matches is None:
                    unreadable.append((walk.file, step.item.phy_offset))
                # a file walked whole (its header range is wrong): the message's own time decides, not the header's
                if not (step.hash_matches and step.key_matches and (step.in_time_range or walk.note)):
                    continue
                off = step.item.phy_offset
                if off in seen:
                    continue
                msg = self.log.message_at(off)
                if walk.note and not begin <= msg.store_timestamp <= end:
                    continue
                seen.add(off)
                hits.append(KeyHit(msg, walk.file, step.item.number, "unique_key" if key == msg.unique_key else "key",
                                   walk.note))
        return hits

    def _scanned_hits(self, topic: str | None, key: str, begin: int, end: int, seen: set[int]) -> list[KeyHit]:
        """What the commitlog ranges of untrusted index files hold under ``key`` (``topic`` None: any topic, for
        a unique key), past the offsets in ``seen``; each hit says how it was found."""
        hits: list[KeyHit] = []
        for reader, start, stop in self._untrusted_ranges():
            if ((begin, end) != (0, MAX_TIME) and not is_time_matched(reader.header, begin, end)
                    and reader.header.end_timestamp > 0 and not self.index_range_problems(reader)):
                continue
            note = (f"{reader.rel} cannot be trusted ({reader.header_problems[0].reason}): found by scanning the "
                    f"commitlog range it covered, {start}..{stop}")
            for msg in scan_for_key(self.log, topic, key, begin, end, start, stop):
                if msg.physical_offset not in seen:
                    seen.add(msg.physical_offset)
                    hits.append(KeyHit(msg, reader.rel, 0, "unique_key" if key == msg.unique_key else "key", note))
        return hits

    def uncovered_hits(self, topic: str | None, key: str, begin: int, end: int, seen: set[int],
                       budget: Budget | None = None, into: list[KeyHit] | None = None) -> list[KeyHit]:
        """What the log no index file covers holds under ``key``, past the offsets in ``seen``, each hit marked
        "found by scan: no index covers A..B", added to ``into`` as found (``budget``: see ``scan_range``; the
        hits before it ran out are in ``into``)."""
        hits: list[KeyHit] = [] if into is None else into
        limits = self.scan_limits if budget is None else None  # a caller's own budget: it catches the stop
        budget = limits.budget if limits is not None else budget
        progress = limits.progress if limits is not None else None
        gaps = self.uncovered()
        total, done = sum(g.stop - g.start for g in gaps), 0
        try:
            for gap in gaps:
                at = None if progress is None else (lambda offset, g=gap, base=done: progress(base + offset - g.start,
                                                                                               total))
                for msg in scan_range(self.log, topic, key, begin, end, gap.start, gap.stop, budget, at):
                    if msg.physical_offset not in seen:
                        seen.add(msg.physical_offset)
                        hits.append(KeyHit(msg, "", 0, "unique_key" if key == msg.unique_key else "key",
                                           f"found by scan: no index covers {gap.text}"))
                done += gap.stop - gap.start
                if progress is not None:
                    progress(done, total)
        except BudgetExceeded as e:
            if limits is None:
                raise
            limits.stopped = str(e)  # the hits found before it are kept; the caller says it stopped short
        return hits

    def _inner_key_hits(self, topic: str, key: str, begin: int, end: int, seen: set[tuple[int, int]]
                        ) -> Iterator[KeyHit]:
        """Inner messages of ``topic``'s batch queues whose KEYS or UNIQ_KEY is ``key``: the broker indexes only
        the batch record (its UNIQ_KEY), so these are found by reading the topic's inner-batch records."""
        for t, qid in self.queues.batch_queue_ids():
            if t != topic:
                continue
            bcq = self.queues.batch_queue(t, qid)
            for unit in bcq.units(0):
                if isinstance(unit, Problem) or not begin <= unit.store_timestamp <= end:
                    continue
                try:
                    msg = self.log.message_at(unit.physical_offset)
                    inner = inner_messages(msg, unit.msg_base_offset) if is_inner_batch(msg) else []
                except StoreError:
                    continue  # verify reports it
                for m in inner:
                    if (m.physical_offset, m.inner_index) in seen or not (key == m.unique_key or key in m.keys):
                        continue
                    seen.add((m.physical_offset, m.inner_index))
                    yield KeyHit(m, unit.file, 0, "unique_key" if key == m.unique_key else "key",
                                 "an inner message of a batch record: the broker does not index these, found by "
                                 f"reading {bcq.rel_dir}")

    def _untrusted_ranges(self) -> list[tuple[IndexFileReader, int, int]]:
        """(reader, first, last physical offset it covered) of each index file whose counters cannot be trusted."""
        readers = self.index_files()
        if all(r.trusted for r in readers):
            return []
        log_start, log_end = self.log.min_offset, self.log_end()
        return [(r, *covered_range(r, readers[i + 1] if i + 1 < len(readers) else None,
                                   readers[i - 1] if i else None, log_start, log_end))
                for i, r in enumerate(readers) if not r.trusted]

    def index_trust_problems(self) -> list[Problem]:
        """Why key lookups scan part of the log, or walk a file whole: the header findings of every index file
        whose counters or range cannot be trusted."""
        return [p for r in self.index_files()
                for p in (r.header_problems if not r.trusted else []) + self.index_range_problems(r)]

    def lookup_unique_key(self, unique_key: str, topics: list[str] | None, known: Sequence[str],
                          scan: bool = True, unreadable: list[tuple[str, int]] | None = None) -> list[KeyHit]:
        """Messages whose UNIQ_KEY is ``unique_key`` in ``topics`` (None: every topic ``known``, and the system
        ones); the index key needs the topic, so each topic's chain is followed, and the ranges of untrusted index
        files (and, with ``scan``, the log no index covers) are scanned once for all of them. ``unreadable``:
        see ``_indexed_hits`` (a story says which of its copies may be behind a damaged record)."""
        candidates = topics or sorted(set(known) | set(SYSTEM_TOPICS))
        hits: list[KeyHit] = []
        for topic in candidates:
            hits.extend(h for h in self._indexed_hits(topic, unique_key, 0, MAX_TIME, unreadable)
                        if h.message.unique_key == unique_key)
        scanned = self._scanned_hits(None, unique_key, 0, MAX_TIME,
                                     {h.message.physical_offset for h in hits})
        if scan:
            scanned += self.uncovered_hits(None, unique_key, 0, MAX_TIME,
                                            {h.message.physical_offset for h in hits + scanned})
        wanted = set(candidates)
        hits.extend(h for h in scanned if h.message.unique_key == unique_key
                    and (topics is None or h.message.topic in wanted))
        for topic in sorted({t for t, _ in self.queues.batch_queue_ids()} & wanted):  # inner messages: not indexed
            hits.extend(h for h in self._inner_key_hits(topic, unique_key, 0, MAX_TIME, set())
                        if h.message.unique_key == unique_key)
        hits.sort(key=lambda h: h.message.physical_offset)
        return hits


def _untrusted_range(problems: list[Problem]) -> str:
    """The note of a lookup in an index file whose header range is wrong."""
    return f"{problems[0].file}'s header range cannot be trusted ({problems[0].reason})"
