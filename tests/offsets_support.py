"""Fixtures for consumer offsets kept where 5.x brokers keep them: RocksDB config databases made with rocksdict,
keys and values spelt out by hand from the broker's source (spec §7.8; ``RocksDBConsumerOffsetManager.putWriteBatch``,
``ConfigRocksDBStorage``, ``ConsumerOffsetManagerV2.keyOfConsumerOffset``), not by the engine's own code."""

from __future__ import annotations

import struct
from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter

T0 = 1_700_000_000_000


def write_rocksdb(path: Path, default: dict[bytes, bytes], families: dict[str, dict[bytes, bytes]] | None = None) -> None:
    """A RocksDB database at ``path`` holding exactly these raw entries (then closed, rocksdict's own file removed)."""
    from rocksdict import Options, Rdict

    path.mkdir(parents=True, exist_ok=True)
    opt = Options(raw_mode=True)
    opt.create_if_missing(True)
    db = Rdict(str(path), opt)
    for key, value in default.items():
        db[key] = value
    for name, rows in (families or {}).items():
        cf = db.create_column_family(name, Options(raw_mode=True))
        for key, value in rows.items():
            cf[key] = value
    db.close()
    (path / "rocksdict-config.json").unlink(missing_ok=True)


def v1_offsets_db(root: Path, entries: dict[str, bytes]) -> None:
    """``config/consumerOffsets/``: key ``topic@group`` UTF-8, value the fastjson the broker writes, and the
    ``kvDataVersion`` family with ``kvDataVersionKey``."""
    write_rocksdb(root / "config" / "consumerOffsets", {k.encode(): v for k, v in entries.items()},
                  {"kvDataVersion": {b"kvDataVersionKey": b'{"counter":3,"stateVersion":0,"timestamp":1700000000000}'},
                   "forbidden": {}})


def v2_offset_key(group: str, topic: str, queue_id: int) -> bytes:
    """01 | int16 table 1 | 02 | int16 len group | 01 | int16 len topic | 01 | int32 queue id."""
    g, t = group.encode(), topic.encode()
    return (b"\x01" + struct.pack(">h", 1) + b"\x02" + struct.pack(">h", len(g)) + g + b"\x01"
            + struct.pack(">h", len(t)) + t + b"\x01" + struct.pack(">i", queue_id))


def offsets_store(root: Path, n: int = 5) -> Path:
    """A store with TopicTest queue 0 holding ``n`` messages (max offset n) and no offsets file."""
    with StoreWriter(root, clock=lambda: T0) as w:
        for i in range(n):
            w.append(MessageSpec(topic="TopicTest", body=f"m{i}".encode(), store_timestamp=T0 + i))
    return root


def rocksdb_queue_store(root: Path, write_commitlog) -> list[int]:
    """Five records of TopicTest queue 1 under ``root`` and their consume queue as a RocksDB database in
    ``consumequeue/`` (5.x storeType=defaultRocksDB: units keyed by topic, queue and queue offset, the offset
    column family's min and max, the checkpoint's max); the records' physical offsets. ``write_commitlog``: the
    conftest fixture's writer."""
    from inspector.engine import Store
    from parsers.java import tags_code
    from parsers.rocksdb_cq import CHECKPOINT_TOPIC, CqValue, cq_key, offset_key

    specs = [dict(topic="TopicTest", queue_id=1, queue_offset=i, store_timestamp=T0 + i * 1000,
                  properties={"TAGS": "TagA", "KEYS": f"k{i}"}) for i in range(5)]
    offsets = write_commitlog(root, specs)
    units = {}
    with Store(root) as plain:
        for i, off in enumerate(offsets):
            m = plain.message_at(off)
            units[cq_key("TopicTest", 1, i)] = CqValue.build(dict(physical_offset=off, size=m.total_size,
                                                                  tags_code=tags_code("TagA"),
                                                                  store_timestamp=m.store_timestamp))
    bounds = {offset_key("TopicTest", "max", 1): offsets[-1].to_bytes(8, "big") + (4).to_bytes(8, "big"),
              offset_key("TopicTest", "min", 1): offsets[0].to_bytes(8, "big") + (0).to_bytes(8, "big"),
              offset_key(CHECKPOINT_TOPIC, "max", 0): (offsets[-1] + 1).to_bytes(8, "big")}
    write_rocksdb(root / "consumequeue", units, {"offset": bounds})
    return offsets
