"""Benchmark stores of broker scale, generated quickly from records our own writer encodes.

``StoreWriter`` writes ~6k messages/s, far too slow for 1 GiB segments (1.4 M records each). So the
writer writes a small *template* store (64 messages of realistic shape: 4 topics x 8 queues, tags,
one or two keys, a UNIQ_KEY, ~560-byte JSON bodies, ~760-byte records), and numpy replicates those
records to fill whole segments, patching per record exactly the fields that differ between messages:
PHYSICALOFFSET, QUEUEOFFSET, BORN/STORETIMESTAMP, the last 8 hex digits of UNIQ_KEY and the digits of
the keys (bodies are unchanged, so BODYCRC stays right). Consume queues (one unit per record, the
template's tagsCode) and index files (UNIQ_KEY and each key of KEYS, Java ``hashCode``, slot chains
by item number) are computed with numpy the way the broker's dispatch writes them, so ``verify``
finds a generated store clean (``run.py`` checks that on the quick data).

The full-size index file (5,000,000 slots, 20,000,000 items) of the lookup store holds the real items
of its messages first, then filler items with uniformly random key hashes (pointing at real records)
up to a full file, so slot chains have the length they have in a full broker index (mean 4).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inspector.engine.maintain.rebuild.index_builder import index_file_name
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.scan.decode import decode_message
from parsers import commitlog as cl
from parsers.checkpoint import CHECKPOINT_FILE_SIZE, Checkpoint
from parsers.consumequeue import CQ_DEFAULT_FILE_SIZE, CQ_UNIT_SIZE
from parsers.dledger import (
    ENTRY_HEADER_SIZE,
    INDEX_FILE_SIZE,
    INDEX_UNIT_SIZE,
    CurrTerm,
    DLedgerCheckpoint,
    EndOfFile,
)
from parsers.indexfile import INDEX_HEADER_SIZE, IndexHeader, index_file_size
from parsers.java import java_string_hash

GENERATOR_VERSION = 3  # bump when the data layout changes: cached data is regenerated
T0 = 1_758_272_400_000  # 2025-09-19 09:00:00 UTC
TOPICS = ("OrderEvents", "PaymentEvents", "InventoryEvents", "AuditLog")
TAGS = ("created", "paid", "shipped", "cancelled", "refunded")
QUEUES_PER_TOPIC = 8
TEMPLATES = 64
STORE_HOST = "10.10.1.5:10911"
MS_PER_RECORD = 1  # store timestamps advance 1 ms per record (~1.4 M records/segment: ~23 min)

DLEDGER_UNIT_DTYPE = np.dtype([("magic", ">i4"), ("pos", ">i8"), ("size", ">i4"), ("index", ">i8"), ("term", ">i8")])
ITEM_DTYPE = np.dtype([("key_hash", ">i4"), ("phy_offset", ">i8"), ("time_diff", ">i4"), ("prev_index", ">i4")])
UNIT_DTYPE = np.dtype([("physical_offset", ">i8"), ("size", ">i4"), ("tags_code", ">i8")])


@dataclass(frozen=True)
class _Key:
    """A key of a template record whose trailing digits are patched per record."""

    offset: int  # of the patched digits in the record
    prefix: str  # text before the patched digits
    digits: int
    hexadecimal: bool
    modulo: int  # the patched number is (global record number) % modulo


@dataclass(frozen=True)
class _Template:
    data: bytes
    topic: str
    queue_id: int
    tags_code: int
    keys: tuple[_Key, ...]  # UNIQ_KEY first, then the KEYS pieces in order (the broker's index order)


def _body(rng: random.Random, n: int) -> bytes:
    items = ",".join(
        f'{{"sku":"SKU-{rng.randrange(10**6):06d}","qty":{rng.randrange(1, 9)},"price":{rng.randrange(100, 99999)}}}'
        for _ in range(6)
    )
    text = f'{{"order":{n},"customer":"cust-{rng.randrange(10**6):06d}","items":[{items}],"note":"'
    target = rng.randrange(420, 700)
    return (text + "x" * max(0, target - len(text) - 2) + '"}').encode()


def make_templates(workdir: Path) -> list[_Template]:
    """64 records written by StoreWriter, with where their keys sit."""
    root = workdir / "templates"
    if root.exists():
        shutil.rmtree(root)
    rng = random.Random(8)
    geometry = Geometry(segment_size=1 << 20, cq_file_size=6000, index_slots=1000, index_items=4000)
    with StoreWriter(root, geometry, producer_ip="10.20.3.7", pid=31337, class_loader_hash=0x1B6D3586,
                     store_host=STORE_HOST) as w:
        for t in range(TEMPLATES):
            keys = [] if t % 5 == 4 else [f"order-{t:010d}"] + ([f"cust-{t:06d}"] if t % 3 == 0 else [])
            w.append(MessageSpec(topic=TOPICS[t % 4], queue_id=(t // 4) % QUEUES_PER_TOPIC, tags=TAGS[t % 5],
                                 keys=keys, body=_body(rng, t), born_host=f"10.20.3.{7 + t % 3}:{50000 + t % 7}",
                                 store_timestamp=T0 + t, born_timestamp=T0 + t - 2))
    seg = (root / "commitlog" / f"{0:020d}").read_bytes()
    templates = []
    pos = 0
    for _ in range(TEMPLATES):
        msg = decode_message(seg, pos, len(seg), file="t", segment_start=0)
        data = seg[pos : pos + msg.total_size]
        keys = []
        uk = msg.unique_key
        assert uk is not None and len(uk) == 32
        at = data.index(b"UNIQ_KEY\x01" + uk.encode()) + 9
        keys.append(_Key(at + 24, f"{msg.topic}#{uk[:24]}", 8, True, 1 << 32))
        if msg.keys:
            kat = data.index(b"KEYS\x01") + 5
            for k in msg.keys:
                name, _, _ = k.partition("-")
                digits = len(k) - len(name) - 1
                keys.append(_Key(kat + len(name) + 1, f"{msg.topic}#{name}-", digits, False, 10**digits))
                kat += len(k) + 1
        templates.append(_Template(data, msg.topic, msg.queue_id, java_string_hash(msg.tags or ""), tuple(keys)))
        pos += msg.total_size
    return templates


# --- helpers -------------------------------------------------------------------------------------------------


def _put_be(buf: np.ndarray, at: np.ndarray, value: np.ndarray, width: int) -> None:
    """Write ``value`` big-endian, ``width`` bytes, at every position ``at`` of a uint8 array."""
    v = value.astype(np.uint64)
    for k in range(width):
        buf[at + k] = ((v >> np.uint64(8 * (width - 1 - k))) & np.uint64(0xFF)).astype(np.uint8)


def _put_digits(buf: np.ndarray, at: np.ndarray, value: np.ndarray, digits: int, hexadecimal: bool) -> None:
    base = 16 if hexadecimal else 10
    alphabet = np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8)
    v = value.astype(np.int64).copy()
    for k in range(digits - 1, -1, -1):
        buf[at + k] = alphabet[v % base]
        v //= base


def _java_hash_ascii(prefix: str, number: np.ndarray, digits: int, hexadecimal: bool) -> np.ndarray:
    """``String.hashCode`` of prefix + number as fixed-width digits, for many numbers (ASCII only)."""
    mask = np.uint64(0xFFFFFFFF)
    h = np.full(number.shape, java_string_hash(prefix) & 0xFFFFFFFF, dtype=np.uint64)
    base = 16 if hexadecimal else 10
    alphabet = np.frombuffer(b"0123456789ABCDEF", dtype=np.uint8).astype(np.uint64)
    v = number.astype(np.int64)
    for k in range(digits - 1, -1, -1):
        d = alphabet[(v // base**k) % base]
        h = (h * np.uint64(31) + d) & mask
    signed = h.astype(np.int64)
    signed = np.where(signed >= 1 << 31, signed - (1 << 32), signed)
    return np.where(signed == -(1 << 31), 0, np.abs(signed)).astype(np.int64)


# --- stores --------------------------------------------------------------------------------------------------


@dataclass
class _Records:
    """What the generated commitlog holds, per record (global number order)."""

    physical_offset: np.ndarray
    size: np.ndarray
    template: np.ndarray
    store_timestamp: np.ndarray
    number: np.ndarray  # global record number (drives the patched digits)


def write_commitlog(root: Path, templates: list[_Template], segments: int, segment_size: int,
                    dledger: bool = False) -> _Records:
    """``segments`` full segments (records, then an 8-byte BLANK and its zero tail). ``dledger``: DLedger data
    files instead (``dledger-n0/data``): each record after a 48-byte entry header (magic 1, size, Raft index =
    record number, term, pos; PHYSICALOFFSET = pos + 48), the -1 end marker at the end, and ``index/`` units."""
    hdr = ENTRY_HEADER_SIZE if dledger else 0
    directory = root / ("dledger-n0/data" if dledger else "commitlog")
    directory.mkdir(parents=True, exist_ok=True)
    sizes = np.array([len(t.data) for t in templates], dtype=np.int64)
    cycle = np.frombuffer(b"".join(bytes(hdr) + t.data for t in templates), dtype=np.uint8)
    starts_in_cycle = np.concatenate([[0], np.cumsum(sizes + hdr)[:-1]])
    queue_of = np.array([TOPICS.index(t.topic) * QUEUES_PER_TOPIC + t.queue_id for t in templates])
    queue_counters = np.zeros(len(TOPICS) * QUEUES_PER_TOPIC, dtype=np.int64)
    parts: list[tuple[np.ndarray, ...]] = []
    units: list[tuple[np.ndarray, ...]] = []
    number = 0
    for s in range(segments):
        first = number % len(templates)
        order = (np.arange(len(templates)) + first) % len(templates)
        per_cycle = int(sizes.sum()) + hdr * len(templates)
        est = segment_size // per_cycle * len(templates) + 2 * len(templates)
        tmpl = order[np.arange(est) % len(templates)]
        ends = np.cumsum(sizes[tmpl] + hdr)
        fits = int(np.searchsorted(ends + cl.END_FILE_MIN_BLANK_LENGTH, segment_size, side="right"))
        tmpl = tmpl[:fits]
        ends = ends[:fits]
        entry = ends - sizes[tmpl] - hdr  # == pos for a plain segment
        pos = entry + hdr
        data_end = int(ends[-1])
        seg = np.zeros(segment_size, dtype=np.uint8)
        rolled = np.concatenate([cycle[starts_in_cycle[first]:], cycle[: starts_in_cycle[first]]])
        reps = -(-data_end // len(rolled))
        seg[:data_end] = np.tile(rolled, reps)[:data_end]
        numbers = number + np.arange(fits, dtype=np.int64)
        phys = s * segment_size + pos
        qid = queue_of[tmpl]
        # queue offsets: running count per queue
        qoff = np.empty(fits, dtype=np.int64)
        for q in np.unique(qid):
            sel = np.flatnonzero(qid == q)
            qoff[sel] = queue_counters[q] + np.arange(sel.size)
            queue_counters[q] += sel.size
        store_ts = T0 + numbers * MS_PER_RECORD
        _put_be(seg, pos + 20, qoff, 8)
        _put_be(seg, pos + 28, phys, 8)
        _put_be(seg, pos + 40, store_ts - 2, 8)
        _put_be(seg, pos + 56, store_ts, 8)  # every template has an IPv4 born host
        for t, template in enumerate(templates):
            sel = np.flatnonzero(tmpl == t)
            for key in template.keys:
                _put_digits(seg, pos[sel] + key.offset, numbers[sel] % key.modulo, key.digits, key.hexadecimal)
        if dledger:  # DLedgerEntryCoder.encode: magic, size, index, term, pos, channel, chainCrc, bodyCrc, length
            _put_be(seg, entry, np.ones(fits, np.int64), 4)
            _put_be(seg, entry + 4, sizes[tmpl] + hdr, 4)
            _put_be(seg, entry + 8, numbers, 8)
            _put_be(seg, entry + 16, 1 + numbers // DLEDGER_TERM_EVERY, 8)
            _put_be(seg, entry + 24, s * segment_size + entry, 8)
            _put_be(seg, entry + 44, sizes[tmpl], 4)
            end = EndOfFile.build(dict(remaining=segment_size - data_end))
        else:
            end = cl.BlankRecord.build(dict(total_size=segment_size - data_end))
        seg[data_end : data_end + 8] = np.frombuffer(end, dtype=np.uint8)
        seg.tofile(directory / f"{s * segment_size:020d}")
        parts.append((phys, sizes[tmpl], tmpl, store_ts, numbers))
        if dledger:
            units.append((s * segment_size + entry, sizes[tmpl] + hdr, numbers))
        number += fits
    if dledger:
        _write_dledger_index(root, *(np.concatenate(col) for col in zip(*units, strict=True)))
    return _Records(*(np.concatenate(col) for col in zip(*parts, strict=True)))


DLEDGER_TERM_EVERY = 500_000  # a leader change every 500,000 entries


def _write_dledger_index(root: Path, pos: np.ndarray, size: np.ndarray, index: np.ndarray) -> None:
    """``dledger-n0/index/`` (32-byte units, DLedger's 160 MiB files), ``checkpoint`` and ``currterm``."""
    units = np.zeros(index.size, dtype=DLEDGER_UNIT_DTYPE)
    units["magic"], units["pos"], units["size"] = 1, pos, size
    units["index"], units["term"] = index, 1 + index // DLEDGER_TERM_EVERY
    home = root / "dledger-n0"
    (home / "index").mkdir(parents=True, exist_ok=True)
    per_file = INDEX_FILE_SIZE // INDEX_UNIT_SIZE
    for start in range(0, index.size, per_file):
        with open(home / "index" / f"{start * INDEX_UNIT_SIZE:020d}", "wb") as f:
            units[start : start + per_file].tofile(f)
            f.truncate(INDEX_FILE_SIZE)
    last, term = int(index[-1]), int(units["term"][-1])
    (home / "checkpoint").write_bytes(DLedgerCheckpoint.build({"endIndex": last, "committedIndex": last}))
    (home / "currterm").write_bytes(CurrTerm.build({"voteLeader": "n0", "currTerm": term}))


def write_consume_queues(root: Path, templates: list[_Template], records: _Records) -> None:
    """One unit per record in its queue, files of 300,000 units named by byte offset (zero tail)."""
    tags = np.array([t.tags_code for t in templates], dtype=np.int64)
    names = [(t.topic, t.queue_id) for t in templates]
    for topic, qid in sorted(set(names)):
        members = [i for i, n in enumerate(names) if n == (topic, qid)]
        sel = np.flatnonzero(np.isin(records.template, members))
        units = np.zeros(sel.size, dtype=UNIT_DTYPE)
        units["physical_offset"] = records.physical_offset[sel]
        units["size"] = records.size[sel]
        units["tags_code"] = tags[records.template[sel]]
        directory = root / "consumequeue" / topic / str(qid)
        directory.mkdir(parents=True, exist_ok=True)
        per_file = CQ_DEFAULT_FILE_SIZE // CQ_UNIT_SIZE
        for start in range(0, max(1, sel.size), per_file):
            path = directory / f"{start * CQ_UNIT_SIZE:020d}"
            with open(path, "wb") as f:
                units[start : start + per_file].tofile(f)
                f.truncate(CQ_DEFAULT_FILE_SIZE)


def item_arrays(templates: list[_Template], records: _Records) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key hash, phy offset, store timestamp) of every index item, in dispatch order."""
    counts = np.array([len(t.keys) for t in templates], dtype=np.int64)
    per_record = counts[records.template]
    base = np.concatenate([[0], np.cumsum(per_record)[:-1]])
    total = int(per_record.sum())
    hashes = np.empty(total, dtype=np.int64)
    for t, template in enumerate(templates):
        sel = np.flatnonzero(records.template == t)
        for k, key in enumerate(template.keys):
            hashes[base[sel] + k] = _java_hash_ascii(key.prefix, records.number[sel] % key.modulo, key.digits,
                                                     key.hexadecimal)
    owner = np.repeat(np.arange(records.template.size), per_record)
    return hashes, records.physical_offset[owner], records.store_timestamp[owner]


def write_index_file(root: Path, hashes: np.ndarray, phys: np.ndarray, stamps: np.ndarray, slots: int,
                     items: int) -> Path:
    """One index file holding these items (item numbers 1..n), chained per slot like ``IndexFile.putKey``."""
    n = hashes.size
    assert n < items
    slot = hashes % slots
    order = np.argsort(slot, kind="stable")
    sorted_slots = slot[order]
    prev = np.zeros(n, dtype=np.int64)
    same = sorted_slots[1:] == sorted_slots[:-1]
    prev[order[1:][same]] = order[:-1][same] + 1
    last = np.ones(n, dtype=bool)
    last[:-1] = ~same
    table = np.zeros(slots, dtype=">i4")
    table[sorted_slots[last]] = order[last] + 1
    begin = int(stamps[0])
    item_array = np.zeros(n + 1, dtype=ITEM_DTYPE)
    item_array["key_hash"][1:] = hashes
    item_array["phy_offset"][1:] = phys
    item_array["time_diff"][1:] = (stamps - begin) // 1000
    item_array["prev_index"][1:] = prev
    header = IndexHeader.build(dict(begin_timestamp=begin, end_timestamp=int(stamps[-1]),
                                    begin_phy_offset=int(phys[0]), end_phy_offset=int(phys[-1]),
                                    hash_slot_count=int(last.sum()), index_count=n + 1))
    directory = root / "index"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / index_file_name(begin, dt.UTC)
    with open(path, "wb") as f:
        f.write(header)
        table.tofile(f)
        item_array.tofile(f)
        f.truncate(index_file_size(slots, items))
    assert INDEX_HEADER_SIZE == len(header)
    return path


def write_root_files(root: Path, templates_root: Path, last_timestamp: int) -> None:
    (root / "lock").write_bytes(b"lock")
    shutil.copytree(templates_root / "config", root / "config", dirs_exist_ok=True)
    (root / "config" / "consumerOffset.json").unlink(missing_ok=True)
    checkpoint = Checkpoint.build(dict(physic_msg_timestamp=last_timestamp, logics_msg_timestamp=last_timestamp,
                                       index_msg_timestamp=0, master_flushed_offset=0, confirm_phy_offset=0,
                                       reserved=bytes(CHECKPOINT_FILE_SIZE - 40)))
    (root / "checkpoint").write_bytes(checkpoint)


def make_store(root: Path, *, segments: int, segment_size: int, index_slots: int = 5_000_000,
               index_items: int = 20_000_000, fill_index: bool = False, workdir: Path | None = None,
               dledger: bool = False) -> dict:
    """A store of ``segments`` full segments with its consume queues and index file(s); returns facts.
    ``dledger``: the same records as DLedger entries (``dledger-n0/``), queues and index at pos + 48."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        templates = make_templates(Path(tmp))
        records = write_commitlog(root, templates, segments, segment_size, dledger)
        write_consume_queues(root, templates, records)
        hashes, phys, stamps = item_arrays(templates, records)
        real_items = hashes.size
        if fill_index:
            rng = np.random.default_rng(8)
            extra = index_items - 1 - hashes.size
            pick = rng.integers(0, records.physical_offset.size, extra)
            hashes = np.concatenate([hashes, rng.integers(0, 1 << 31, extra)])
            phys = np.concatenate([phys, records.physical_offset[pick]])
            stamps = np.concatenate([stamps, np.full(extra, stamps[-1])])
        # one file per `index_items - 1` items, as the broker rolls them
        per_file = index_items - 1
        for start in range(0, hashes.size, per_file):
            write_index_file(root, hashes[start : start + per_file], phys[start : start + per_file],
                             stamps[start : start + per_file], index_slots, index_items)
        write_root_files(root, Path(tmp) / "templates", int(records.store_timestamp[-1]))
    facts = dict(
        version=GENERATOR_VERSION, segments=segments, segment_size=segment_size, dledger=dledger,
        records=int(records.size.size),
        bytes=int(records.size.sum()), index_items=int(hashes.size), real_index_items=int(real_items),
        index_slots=index_slots, topics=list(TOPICS), queues_per_topic=QUEUES_PER_TOPIC,
        sample_offsets=[int(x) for x in records.physical_offset[:: max(1, records.size.size // 997)]],
        sample_keys=[(templates[int(records.template[i])].topic, f"order-{int(records.number[i]) % 10**10:010d}")
                     for i in range(0, records.size.size, max(1, records.size.size // 499))
                     if templates[int(records.template[i])].keys[1:]],
    )
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_store(root: Path, **kwargs) -> dict:
    """``make_store`` unless ``root`` already holds a store generated with the same arguments."""
    wanted = {k: v for k, v in kwargs.items() if k in ("segments", "segment_size", "index_slots", "dledger")}
    facts = stamped_facts(root, GENERATOR_VERSION, wanted)
    if facts is not None:
        if not kwargs.get("fill_index") or facts.get("index_items") == kwargs.get("index_items", 20_000_000) - 1:
            return facts
    return make_store(root, **kwargs)


# --- the many-queue store ------------------------------------------------------------------------------------

MANY_QUEUES_VERSION = 1  # bump when its layout changes: the cached store is regenerated


def make_many_queue_store(root: Path, *, topics: int = 2000, queues: int = 8, per_queue: int = 2) -> dict:
    """A broker with thousands of queues: ``topics`` x ``queues`` consume queues of ``per_queue`` messages each,
    written by our own StoreWriter with the broker's geometry. Every consume-queue file is created at the full
    6,000,000 bytes with ``truncate`` and filled with positioned writes, so it is sparse on disk (a few KiB
    allocated) like a broker's preallocated file; the one commitlog segment is a sparse 1 GiB file."""
    if root.exists():
        shutil.rmtree(root)
    with StoreWriter(root, Geometry(), producer_ip="10.20.3.7", pid=4242, store_host=STORE_HOST) as w:
        n = 0
        for round_ in range(per_queue):  # round-robin over the queues, as many producers would interleave
            for t in range(topics):
                for q in range(queues):
                    w.append(MessageSpec(topic=f"Topic{t:05d}", queue_id=q, tags=TAGS[n % len(TAGS)],
                                         keys=[f"k-{n:08d}"], body=b'{"n":%d,"round":%d}' % (n, round_),
                                         store_timestamp=T0 + n, born_timestamp=T0 + n - 1))
                    n += 1
    facts = dict(version=MANY_QUEUES_VERSION, topics=topics, queues=queues, per_queue=per_queue, messages=n)
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_many_queue_store(root: Path, **kwargs) -> dict:
    """``make_many_queue_store`` unless ``root`` already holds one made with the same arguments."""
    facts = stamped_facts(root, MANY_QUEUES_VERSION, kwargs)
    return facts if facts is not None else make_many_queue_store(root, **kwargs)


GROUP_STORE_VERSION = 1  # bump when the group store's layout changes


def make_group_store(base: Path, root: Path, *, group: str = "bench-group", committed: int = 1) -> dict:
    """The many-queue store ``base`` as hard links (no byte copied), with one consumer group committed at
    ``committed`` on every one of its queues (issue 30: ``group`` of a 16,000-queue store): its own
    ``config/consumerOffset.json`` and ``subscriptionGroup.json`` (new files, never the linked ones)."""
    if root.exists():
        shutil.rmtree(root)
    queues: dict[str, dict[int, int]] = {}
    for path in sorted(base.rglob("*")):
        target = root / path.relative_to(base)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.parent.name == "config" and path.name in ("consumerOffset.json", "subscriptionGroup.json"):
            continue
        os.link(path, target)
        if path.parent.parent.parent.name == "consumequeue":
            queues.setdefault(path.parent.parent.name, {})[int(path.parent.name)] = committed
    offsets = {f"{topic}@{group}": dict(sorted(q.items())) for topic, q in sorted(queues.items())}
    (root / "config" / "consumerOffset.json").write_text(json.dumps({"offsetTable": offsets}))
    (root / "config" / "subscriptionGroup.json").write_text(json.dumps(
        {"subscriptionGroupTable": {group: {"groupName": group, "consumeEnable": True, "retryMaxTimes": 16}}}))
    facts = dict(version=GROUP_STORE_VERSION, group=group, committed=committed,
                 queues=sum(len(q) for q in queues.values()))
    (root / "bench.json").unlink(missing_ok=True)  # the base's stamp was linked: this store has its own
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_group_store(base: Path, root: Path, **kwargs) -> dict:
    """``make_group_store`` unless ``root`` already holds one made with the same arguments."""
    facts = stamped_facts(root, GROUP_STORE_VERSION, kwargs)
    return facts if facts is not None else make_group_store(base, root, **kwargs)


# --- stores whose files are larger or more numerous than their data (issue 35) ------------------------------

SHAPES_VERSION = 1  # bump when these stores' layout changes: the cached ones are regenerated


def make_copied_store(root: Path, *, segment_size: int, index_slots: int = 5_000_000,
                      index_items: int = 20_000_000) -> dict:
    """``root/sparse``: a broker's store holding one message (one ``segment_size`` segment, a 6,000,000-byte queue
    file and an index file, all preallocated sparse by our writer); ``root/copy``: the same files with every byte
    written, holes as zeros (what ``scp``, plain ``tar`` or ``cp --sparse=never`` leave)."""
    if root.exists():
        shutil.rmtree(root)
    sparse, copy = root / "sparse", root / "copy"
    geometry = Geometry(segment_size=segment_size, index_slots=index_slots, index_items=index_items)
    with StoreWriter(sparse, geometry, producer_ip="10.20.3.7", pid=4242, store_host=STORE_HOST) as w:
        w.append(MessageSpec(topic="Orders", queue_id=0, tags="created", keys=["order-1"], body=b'{"n":1}',
                             store_timestamp=T0, born_timestamp=T0 - 1))
    chunk = bytes(16 << 20)
    for path in sorted(sparse.rglob("*")):
        target = copy / path.relative_to(sparse)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "rb") as src, open(target, "wb") as dst:
            while True:
                piece = src.read(len(chunk))
                if not piece:
                    break
                dst.write(piece)  # zeros too: every block allocated
    facts = dict(version=SHAPES_VERSION, segment_size=segment_size, index_slots=index_slots)
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_copied_store(root: Path, **kwargs) -> dict:
    facts = stamped_facts(root, SHAPES_VERSION, kwargs)
    return facts if facts is not None else make_copied_store(root, **kwargs)


def make_empty_segments_store(root: Path, *, count: int, sample: str | None = None) -> dict:
    """``count`` empty files named as segments in ``commitlog/`` (issue 35). Without ``sample``: nothing else, the
    names 1 GiB apart. With it: a copy of the store at ``sample`` and the files after its own segments, every fourth
    name on its segment grid, so each file is an empty-segment finding and each gap a missing-segment one (with a
    segment size known the layout check was quadratic in the number of files: 20,000 took 2.6 s)."""
    if root.exists():
        shutil.rmtree(root)
    log = root / "commitlog"
    if sample is None:
        log.mkdir(parents=True)
        names = [i << 30 for i in range(count)]
    else:
        shutil.copytree(sample, root)
        size = max(p.stat().st_size for p in log.iterdir())
        last = max(int(p.name) for p in log.iterdir())
        names = [last + 4 * i * size for i in range(1, count + 1)]
    for name in names:
        (log / f"{name:020d}").touch()
    facts = dict(version=SHAPES_VERSION, count=count, sample=sample)
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_empty_segments_store(root: Path, **kwargs) -> dict:
    facts = stamped_facts(root, SHAPES_VERSION, kwargs)
    return facts if facts is not None else make_empty_segments_store(root, **kwargs)


def stamped_facts(root: Path, version: int, wanted: dict) -> dict | None:
    """The facts a generated store at ``root`` was stamped with, when made by ``version`` with ``wanted``."""
    stamp = root / "bench.json"
    if not stamp.exists():
        return None
    facts = json.loads(stamp.read_text())
    if facts.get("version") == version and all(facts.get(k) == v for k, v in wanted.items()):
        return facts
    return None


TIMER_VERSION = 1  # bump when the timer store's layout changes: the cached one is regenerated
TIMER_TOPICS = ("Orders", "Payments", "Shipping", "Refunds")


def make_timer_store(root: Path, *, units: int = 1_000_000) -> dict:
    """A 5.x timer store of ``units`` timer-log units made with numpy (not the writer): 52-byte units in
    100 MiB timerlog files (each ending in its 16-byte blank), their chains in a sparse 38,707,200-byte
    timerwheel (one slot per second over a day, units spread over them), timercheck, timermetrics, a checkpoint
    and an empty commitlog/. The units point at commitlog offsets no record holds: this measures the timer
    log itself (a linked record costs a record read of its own)."""
    from inspector.engine.read.timer.timerstore import SLOT_DTYPE, UNIT_DTYPE
    from parsers.timer import TIMER_LOG_DEFAULT_FILE_SIZE, TIMER_WHEEL_FILE_SIZE, TIMER_WHEEL_SLOTS

    if root.exists():
        shutil.rmtree(root)
    (root / "timerlog").mkdir(parents=True)
    (root / "commitlog").mkdir()
    (root / "config").mkdir()
    (root / "checkpoint").write_bytes(bytes(CHECKPOINT_FILE_SIZE))
    t0, slots = 1_700_000_000_000, 86_400
    per_file = (TIMER_LOG_DEFAULT_FILE_SIZE - 16) // 52
    offsets = np.arange(units, dtype=np.int64)
    offsets = offsets // per_file * TIMER_LOG_DEFAULT_FILE_SIZE + offsets % per_file * 52
    slot_of = np.arange(units, dtype=np.int64) % slots  # unit i lands in second i % slots
    due = t0 + 60_000 + slot_of * 1000
    arr = np.zeros(units, UNIT_DTYPE)
    arr["size"], arr["magic"], arr["record_size"] = 52, 1, 300
    arr["write_time"] = t0 + (np.arange(units) * 50 // max(1, units)) * 1000  # written over 50 s
    arr["delay"] = due - arr["write_time"]
    arr["commitlog_offset"] = np.arange(units, dtype=np.int64) * 300
    hashes = np.array([java_string_hash(t) for t in TIMER_TOPICS], dtype=np.int32)
    arr["topic_hash"] = hashes[np.arange(units) % len(TIMER_TOPICS)]
    prev = np.full(units, -1, dtype=np.int64)
    prev[slots:] = offsets[:-slots]  # the previous unit of the same slot: `slots` units earlier
    arr["prev_pos"] = prev
    blank = struct.pack(">iqI", 16, 0, 0xCBD43194)  # TimerLog's end blank: 16 bytes remain
    for start in range(0, units, per_file):
        chunk = arr[start:start + per_file].tobytes()
        path = root / "timerlog" / f"{start // per_file * TIMER_LOG_DEFAULT_FILE_SIZE:020d}"
        with open(path, "wb") as f:
            f.write(chunk)
            if start + per_file < units:  # a full file ends in the blank (remaining 16 bytes)
                f.write(blank)
            f.truncate(TIMER_LOG_DEFAULT_FILE_SIZE)
    wheel = np.zeros(min(units, slots), SLOT_DTYPE)
    seconds = (t0 + 60_000) // 1000 + np.arange(len(wheel), dtype=np.int64)
    wheel["time"] = seconds
    wheel["first_pos"] = offsets[:len(wheel)]
    last_rows = np.arange(len(wheel)) + (units - 1 - np.arange(len(wheel))) // slots * slots
    wheel["last_pos"] = offsets[last_rows]
    wheel["num"] = (units - np.arange(len(wheel)) + slots - 1) // slots
    with open(root / "timerwheel", "wb") as f:
        first = int(seconds[0] % TIMER_WHEEL_SLOTS)
        f.seek(first * 32)
        f.write(wheel.tobytes())  # a day of consecutive slots (no wrap: the first slot is far from the end)
        f.truncate(TIMER_WHEEL_FILE_SIZE)
    check = np.array([t0 + 30_000, int(offsets[-1]) + 52, units, units, 0, t0, 1], dtype=">i8").tobytes()
    (root / "config" / "timercheck").write_bytes(check.ljust(CHECKPOINT_FILE_SIZE, b"\0"))
    counts = {t: units // len(TIMER_TOPICS) for t in TIMER_TOPICS}
    timing = ",".join(f'"{t}":{{"count":{c},"timeStamp":{t0}}}' for t, c in sorted(counts.items()))
    (root / "config" / "timermetrics").write_text(
        f'{{"dataVersion":{{"counter":1,"stateVersion":0,"timestamp":{t0}}},"timingCount":{{{timing}}}}}')
    facts = {"version": TIMER_VERSION, "units": units}
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_timer_store(root: Path, **kwargs) -> dict:
    """``make_timer_store`` unless ``root`` already holds one made with the same arguments."""
    facts = stamped_facts(root, TIMER_VERSION, kwargs)
    return facts if facts is not None else make_timer_store(root, **kwargs)


if __name__ == "__main__":  # python benchmarks/datagen.py OUT SEGMENTS SEGMENT_MB
    import sys

    out, n, mb = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    print(make_store(out, segments=n, segment_size=mb << 20, workdir=Path(os.environ.get("TMPDIR", "/tmp"))))


# --- the trace store: the lookup store and a segment of trace records ------------------------------------------

TRACE_VERSION = 1  # bump when the trace store's layout changes: the cached one is regenerated
TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"


def make_trace_store(root: Path, base: Path, *, traced: int = 200) -> dict:
    """The lookup store ``base`` (hard links to its files, so it costs no copy; nothing of it is written) with a
    second segment of trace messages as a client with message trace on sends them: for each of ``traced`` of its
    messages a Pub, then a SubBefore + SubAfter batched in one body (``tracewrite.trace_spec``: KEYS the traced
    UNIQ_KEY and the message's keys), with the trace topic's consume queue and an index file of their keys, of
    the base's index geometry. Returns facts: ``traced`` (UNIQ_KEY, offset msgId, physical offset) triples."""
    from inspector.engine import open_store
    from inspector.engine.maintain.write.tracewrite import trace_spec
    from parsers.java import index_key, index_key_hash

    base_facts = json.loads((base / "bench.json").read_text())
    segment_size = base_facts["segment_size"]
    if root.exists():
        shutil.rmtree(root)
    for path in sorted(base.rglob("*")):
        target = root / path.relative_to(base)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.name != "bench.json":
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, target)
            except OSError:  # another filesystem: a copy
                shutil.copy2(path, target)
    last = T0 + base_facts["records"] * MS_PER_RECORD
    slots, items = base_facts["index_slots"], base_facts["index_items"] + 1  # the base's index file is full
    with open_store(base, index_slots=slots, index_items=items) as store:
        msgs = [store.message_at(o) for o in base_facts["sample_offsets"][:traced]]
        # the base's full index file holds its last record's first key only (cut there, as a full file is): the
        # broker's next index file starts with that record's keys, so ours does too (the log stays covered)
        cut = [store.message_at(span.last) for span in store.index_coverage()[0] if span.cut]
    with tempfile.TemporaryDirectory(dir=root.parent) as tmp:
        geometry = Geometry(segment_size=16 << 20, cq_file_size=CQ_DEFAULT_FILE_SIZE, index_slots=1000,
                            index_items=100_000)
        with StoreWriter(tmp, geometry, store_host=STORE_HOST, clock=lambda: last) as w:
            for i, m in enumerate(msgs):
                ts = last + 1000 + 10 * i
                keys = " ".join(m.keys) or "null"
                pub = {"type": "Pub", "timestamp": ts, "region_id": "DefaultRegion", "group": "bench-producer",
                       "topic": m.topic, "msg_id": m.unique_key, "tags": m.tags or "null", "keys": keys,
                       "store_host": STORE_HOST, "body_length": len(m.body), "cost_time": 2,
                       "msg_type": "Normal_Msg", "offset_msg_id": m.msg_id, "success": True}
                before = {"type": "SubBefore", "timestamp": ts + 5, "region_id": "DefaultRegion",
                          "group": "bench-consumer", "request_id": f"req-{i}", "msg_id": m.unique_key,
                          "retry_times": 0, "keys": keys}
                after = {"type": "SubAfter", "request_id": f"req-{i}", "msg_id": m.unique_key, "cost_time": 4,
                         "success": True, "keys": keys, "context_code": 0, "timestamp": ts + 9,
                         "group": "bench-consumer"}
                w.append(trace_spec([pub], store_timestamp=ts + 1))
                w.append(trace_spec([before, after], store_timestamp=ts + 9))
        seg = bytearray((Path(tmp) / "commitlog" / f"{0:020d}").read_bytes())
    # the trace messages moved to the second segment: PHYSICALOFFSET + segment_size (their offset msgIds follow)
    units, hashes, phys, stamps = [], [], [], []
    for m in cut:
        for key in [m.unique_key, *m.keys]:
            hashes.append(index_key_hash(index_key(m.topic, key)))
            phys.append(m.physical_offset)
            stamps.append(m.store_timestamp)
    pos = 0
    while pos + 8 <= len(seg) and struct.unpack_from(">i", seg, pos)[0] > 0:  # the writer's zero tail ends it
        m = decode_message(seg, pos, len(seg), file="t", segment_start=0)
        struct.pack_into(">q", seg, pos + 28, segment_size + pos)
        units.append((segment_size + pos, m.total_size, 0))
        for key in [m.unique_key, *m.keys]:  # what IndexService.buildIndex indexes: UNIQ_KEY, then each key
            hashes.append(index_key_hash(index_key(m.topic, key)))
            phys.append(segment_size + pos)
            stamps.append(m.store_timestamp)
        pos += m.total_size
    with open(root / "commitlog" / f"{segment_size:020d}", "wb") as f:
        f.write(bytes(seg[:pos]))
        f.truncate(segment_size)
    queue = root / "consumequeue" / TRACE_TOPIC / "0"
    queue.mkdir(parents=True)
    with open(queue / f"{0:020d}", "wb") as f:
        np.array(units, dtype=UNIT_DTYPE).tofile(f)
        f.truncate(CQ_DEFAULT_FILE_SIZE)
    write_index_file(root, np.array(hashes, dtype=np.int64), np.array(phys, dtype=np.int64),
                     np.array(stamps, dtype=np.int64),
                     slots, items)
    facts = dict(version=TRACE_VERSION, segment_size=segment_size, base_records=base_facts["records"],
                 index_slots=slots, index_items=items,
                 trace_messages=len(units), traced=[(m.unique_key, m.msg_id, m.physical_offset) for m in msgs])
    (root / "bench.json").write_text(json.dumps(facts))
    return facts


def cached_trace_store(root: Path, base: Path, **kwargs) -> dict:
    """``make_trace_store`` unless ``root`` holds one made from a base of the same size."""
    base_facts = json.loads((base / "bench.json").read_text())
    facts = stamped_facts(root, TRACE_VERSION, dict(segment_size=base_facts["segment_size"],
                                                    base_records=base_facts["records"]))
    return facts if facts is not None else make_trace_store(root, base, **kwargs)

