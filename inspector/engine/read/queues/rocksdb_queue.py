"""RocketMQ 5 RocksDB consume queue (``<root>/consumequeue`` as a RocksDB database, spec §8), via rocksdict.

RocksDB and rocksdict write into a database directory even when it is opened
read-only (the info LOG, ``rocksdict-config.json``). To keep the engine's
promise never to modify a store, we open a private snapshot: immutable ``*.sst``
files are symlinked, the few small mutable files (CURRENT, MANIFEST, OPTIONS,
WAL) are copied into a temporary directory.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

from inspector.engine.model.errors import NotFound, StoreError
from inspector.engine.model.records import CqUnit, Problem, QueueInfo
from parsers.rocksdb_cq import (
    CHECKPOINT_TOPIC,
    CqKey,
    CqValue,
    OffsetKey,
    OffsetValue,
    cq_key,
    queue_key_range,
    topic_of,
)

SKIP_FILES = {"LOCK", "rocksdict-config.json"}
_SST_AT = re.compile(r"(\w+\.sst) offset (\d+)")  # where rocksdict's corruption messages say the damage is
REL = "consumequeue (RocksDB)"


def is_rocksdb_dir(path: Path) -> bool:
    return (path / "CURRENT").is_file()


def _snapshot(src: Path, rel: str = "consumequeue") -> Path:
    """A private copy of the RocksDB database at ``src`` (``rel``: its name in messages), for every RocksDB
    directory of a store (consume queue, config databases): StoreError naming ``rel`` when it cannot be made."""
    import tempfile  # here: it imports random and more, which a store with no RocksDB never needs

    dst = Path(tempfile.mkdtemp(prefix="rmq-inspect-rocksdb-"))
    try:
        for entry in src.iterdir():
            if not entry.is_file() or entry.name in SKIP_FILES or entry.name.startswith("LOG"):
                continue
            if entry.suffix == ".sst":
                (dst / entry.name).symlink_to(entry.resolve())
            else:
                shutil.copy2(entry, dst / entry.name)
    except OSError as e:
        shutil.rmtree(dst, ignore_errors=True)
        what = "consume queue" if rel.startswith("consumequeue") else "database"
        raise StoreError(f"cannot snapshot the RocksDB {what}: {e}", rel) from None
    return dst


def checked_items(family) -> Iterator[tuple[bytes, bytes]]:
    """Every (key, value) of a rocksdict column family (or database) in key order, raising when the read
    stopped on an error: rocksdict's ``items()`` ends quietly at a corrupt block, as if the data ended there
    (a whole queue's bounds would vanish without a word); its iterator's ``status()`` raises what stopped it."""
    it = family.iter()
    it.seek_to_first()
    while it.valid():
        yield it.key(), it.value()
        it.next()
    it.status()


def rocksdb_reason(e: Exception) -> str:
    """The first line of what rocksdict raised (its messages run on over several lines)."""
    lines = str(e).strip().splitlines()
    return (lines[0] if lines else type(e).__name__)[:300]


def _drop_snapshot(path: Path) -> None:
    """Remove a private snapshot made by :func:`_snapshot` (a temporary directory, never the store)."""
    shutil.rmtree(path, ignore_errors=True)


class RocksDBConsumeQueueStore:
    """All queues of a RocksDB consume queue, read from a private snapshot.

    ``directory``: ``consumequeue`` (where every RocketMQ release from 5.2.0 to develop of 2025-09 puts it:
    ``RocksDBConsumeQueueStore`` opens ``StorePathConfigHelper.getStorePathConsumeQueue``) or
    ``consumequeue_rocksdb`` (spec part 2 §19 names it for ``useSeparateStorePathForRocksdbCQ``; no tagged
    release has that setting, but such a folder is read the same way when it is there)."""

    def __init__(self, root: Path, directory: str = "consumequeue"):
        try:
            from rocksdict import AccessType, Options, Rdict
        except ImportError:
            raise StoreError("a RocksDB consume queue needs the 'rocksdb' extra (rocksdict)", directory) from None
        self.rel = REL if directory == "consumequeue" else f"{directory} (RocksDB)"
        self._dir = _snapshot(root / directory, directory)
        try:
            cfs = Rdict.list_cf(str(self._dir))
            families = {name: Options(raw_mode=True) for name in cfs if name != "default"}
            self._db = Rdict(str(self._dir), Options(raw_mode=True), column_families=families,
                             access_type=AccessType.read_only())
            self._offsets = self._db.get_column_family("offset") if "offset" in cfs else None
        except Exception as e:  # noqa: BLE001 - rocksdict raises plain Exception
            _drop_snapshot(self._dir)
            # the message names the private copy's files: name the store's directory instead
            why = rocksdb_reason(e).replace(str(self._dir), directory)
            raise StoreError(f"cannot open the RocksDB consume queue: {why}", directory) from None
        self._bounds: dict[tuple[str, int], dict[str, tuple[int, int]]] = {}
        self.max_dispatched_offset: int | None = None
        self.directory = directory
        self.problems: list[Problem] = []  # reads that failed after opening (a corrupt block), each once
        try:
            self._load_offsets()
        except Exception as e:  # noqa: BLE001 - rocksdict raises plain Exception (a block's checksum...)
            self.close()
            raise self.read_error(e, "cannot read the RocksDB consume queue's offsets") from None

    def read_error(self, e: Exception, what: str) -> StoreError:
        """What rocksdict raised on a read, as a StoreError naming the store's file and offset (the message
        names the private snapshot's: ``... in /tmp/rmq-inspect-rocksdb-x/000011.sst offset 1676 size 1633``)."""
        why = rocksdb_reason(e).replace(str(self._dir), self.directory)
        found = _SST_AT.search(why)
        file, offset = (f"{self.directory}/{found[1]}", int(found[2])) if found else (self.directory, 0)
        return StoreError(f"{what}: {why}", file, offset)

    def note(self, error: StoreError) -> Problem:
        """A failed read as a finding (kept once per file and offset for verify and the overviews)."""
        problem = Problem(error.file or self.directory, error.offset or 0, error.reason, "rocksdb-read")
        if all((p.file, p.offset) != (problem.file, problem.offset) for p in self.problems):
            self.problems.append(problem)
        return problem

    def _load_offsets(self) -> None:
        if self._offsets is None:
            return
        for key, value in checked_items(self._offsets):
            try:
                k = OffsetKey.parse(key)
            except Exception:  # noqa: BLE001 - a foreign key: skip, as RocketMQ does
                continue
            topic = topic_of(k)
            if topic == CHECKPOINT_TOPIC and len(value) == 8:
                self.max_dispatched_offset = int.from_bytes(value, "big", signed=True)
                continue
            if len(value) != 16:
                continue
            v = OffsetValue.parse(value)
            self._bounds.setdefault((topic, k.queue_id), {})[k.kind] = (v.physical_offset, v.queue_offset)

    def close(self) -> None:
        try:
            self._db.close()
        finally:
            _drop_snapshot(self._dir)

    def queue_ids(self) -> list[tuple[str, int]]:
        return sorted(self._bounds)

    def queue(self, topic: str, queue_id: int) -> RocksDBQueue:
        if (topic, queue_id) not in self._bounds:
            raise NotFound(f"no RocksDB consume queue for topic {topic!r} queue {queue_id}", self.rel)
        return RocksDBQueue(self, topic, queue_id)


class RocksDBQueue:
    """One queue: the same reading interface as the file ConsumeQueue."""

    def __init__(self, owner: RocksDBConsumeQueueStore, topic: str, queue_id: int):
        self.owner = owner
        self.topic = topic
        self.queue_id = queue_id
        self.rel_dir = owner.rel

    def info(self) -> QueueInfo:
        bounds = self.owner._bounds[(self.topic, self.queue_id)]
        max_offset = bounds["max"][1] + 1 if "max" in bounds else 0  # the `max` entry is inclusive
        min_offset = bounds["min"][1] if "min" in bounds else 0
        max_end = 0
        if max_offset > min_offset:
            try:
                last = self.unit(max_offset - 1)
                max_end = last.physical_offset + last.size
            except NotFound:
                pass
            except StoreError as e:  # a corrupt block: the bounds still stand; verify names the read
                self.owner.note(e)
        return QueueInfo(self.topic, self.queue_id, min_offset, max_offset, (self.rel_dir,), max_end)

    def _unit(self, key: bytes, value: bytes) -> CqUnit:
        try:
            k, v = CqKey.parse(key), CqValue.parse(value)
        except Exception as e:  # noqa: BLE001 - construct's errors: a key or value of another shape
            raise StoreError(f"{self.topic} queue {self.queue_id}: an entry RocksDB holds is not a consume-queue "
                             f"unit (key {key[:40].hex()}, value of {len(value)} bytes: {e})", self.owner.directory,
                             0) from None
        return CqUnit(self.topic, self.queue_id, k.queue_offset, v.physical_offset, v.size, v.tags_code, self.rel_dir,
                      k.queue_offset)

    def unit(self, queue_offset: int) -> CqUnit:
        key = cq_key(self.topic, self.queue_id, queue_offset)
        try:
            value = self.owner._db.get(key)
        except Exception as e:  # noqa: BLE001 - rocksdict raises plain Exception (a block's checksum...)
            raise self.owner.read_error(e, f"{self.topic} queue {self.queue_id}: cannot read unit "
                                           f"{queue_offset}") from None
        if value is None:
            raise NotFound(f"no unit for queue offset {queue_offset}", self.rel_dir)
        return self._unit(key, value)

    def units(self, from_offset: int = 0) -> Iterator[CqUnit | Problem]:
        """The queue's units from ``from_offset``; a read that fails (a corrupt block, an entry of another shape)
        is a Problem, and the queue ends there (RocksDB cannot step past what it cannot read)."""
        _, upper = queue_key_range(self.topic, self.queue_id)
        try:
            it = self.owner._db.iter()
            it.seek(cq_key(self.topic, self.queue_id, max(from_offset, 0)))
            while it.valid() and it.key() < upper:
                unit = self._unit(it.key(), it.value())
                yield unit
                it.next()
            it.status()  # an iterator stopped by an error is not valid: its status says so
        except StoreError as e:
            yield self.owner.note(e)
        except Exception as e:  # noqa: BLE001 - rocksdict raises plain Exception
            yield self.owner.note(self.owner.read_error(e, f"{self.topic} queue {self.queue_id}: cannot read the "
                                                           "units"))

    def close(self) -> None:
        pass

    def release_pages(self) -> None:
        pass  # nothing mapped: the units come from the store's database
