"""The RocksDB config databases of a 5.x broker (spec §7.8), read from private snapshots.

v1 (``storeType=defaultRocksDB``, 5.2.0+: ``broker/.../offset/RocksDBConsumerOffsetManager.java`` and siblings in
5.3.1, ``broker/.../config/v1/`` from 5.3.2): ``config/consumerOffsets/``, ``config/topics/``,
``config/subscriptionGroups/``, each a database whose default column family maps a name (``topic@group`` for
offsets) to the fastjson of one object (offsets: ``{"offsetTable":{queueId:offset}}``, written with
``BrowserCompatible``, so a long past 2^53 may be a string), plus ``kvDataVersion`` and ``forbidden`` families.

v2 (``configManagerVersion=v2``, 5.3.2+, ``broker/.../config/v2/``): one database ``config/rdb/`` with
table-prefixed binary keys (``parsers/rocksdb_config.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem
from inspector.engine.read.config.config import ConfigSet
from inspector.engine.read.queues.rocksdb_queue import (
    _drop_snapshot,
    _snapshot,
    checked_items,
    is_rocksdb_dir,
    rocksdb_reason,
)
from parsers.fastjson import FastjsonError, loads, split_topic_group
from parsers.rocksdb_config import (
    KV_DATA_VERSION_CF,
    KV_DATA_VERSION_KEY,
    RECORD_DATA,
    SERIALIZATION_JSON,
    TABLE_PREFIX,
    TABLES,
    V2KeyHead,
    V2OffsetKey,
)

V1_DATABASES = ("config/consumerOffsets", "config/topics", "config/subscriptionGroups")
V2_DATABASE = "config/rdb"
Offsets = dict[tuple[str, str], dict[int, int]]


def read_database(src: Path, rel: str) -> dict[str, list[tuple[bytes, bytes]]]:
    """Every column family of the database at ``src``: name -> its (key, value) pairs in key order, raw bytes,
    read at once from a private snapshot (config databases are small: one entry per topic, group or
    topic@group). StoreError naming ``rel`` when it cannot be read (no rocksdict, a bad CURRENT, no MANIFEST,
    no permission)."""
    try:
        from rocksdict import AccessType, Options, Rdict
    except ImportError:
        raise StoreError("a RocksDB database needs the 'rocksdb' extra (rocksdict)", rel) from None
    copy = _snapshot(src, rel)
    db = None
    try:
        names = Rdict.list_cf(str(copy))
        others = {name: Options(raw_mode=True) for name in names if name != "default"}
        db = Rdict(str(copy), Options(raw_mode=True), column_families=others, access_type=AccessType.read_only())
        return {name: list(checked_items(db if name == "default" else db.get_column_family(name))) for name in names}
    except Exception as e:  # noqa: BLE001 - rocksdict raises plain Exception (bad CURRENT, no MANIFEST...)
        # the message names the private copy's files: name the store's directory instead
        raise StoreError(f"cannot open as a RocksDB database: {rocksdb_reason(e).replace(str(copy), rel)}", rel) from None
    finally:
        if db is not None:
            db.close()
        _drop_snapshot(copy)


@dataclass
class DatabaseSummary:
    """One config database as listed by ``info``: its tables (column families, or v2 tables) with counts."""

    rel: str
    tables: dict[str, int] = field(default_factory=dict)
    data_version: str | None = None
    error: str | None = None


def _long(value: object) -> int | None:
    """A Java long as fastjson writes it (BrowserCompatible quotes one past 2^53)."""
    if isinstance(value, str) and value.lstrip("-").isdigit() and value.isascii():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and -(1 << 63) <= value < (1 << 63):
        return value
    return None


def v1_offsets(families: dict[str, list[tuple[bytes, bytes]]], rel: str) -> tuple[Offsets, list[Problem]]:
    """``config/consumerOffsets/``: ``topic@group`` -> ``{"offsetTable":{queueId:offset}}``."""
    table: Offsets = {}
    problems = []
    for key, value in families.get("default", []):
        try:
            name = key.decode("utf-8")
            obj = loads(value)
        except (UnicodeDecodeError, FastjsonError, RecursionError) as e:
            problems.append(Problem(rel, 0, f"entry {key[:60]!r}: not a topic@group with fastjson offsets ({e}): "
                                    "ignored", "bad-config-entry", "warning", entry=key.hex()))
            continue
        queues = obj.get("offsetTable") if isinstance(obj, dict) else None
        if "@" not in name or not isinstance(queues, dict):
            problems.append(Problem(rel, 0, f"entry {name[:60]!r}: no offsetTable object: ignored",
                                    "bad-config-entry", "warning", entry=key.hex()))
            continue
        parsed = {_long(q): _long(o) for q, o in queues.items()}
        table[split_topic_group(name)] = {q: o for q, o in parsed.items() if q is not None and o is not None}
    return table, problems


def v2_offsets(families: dict[str, list[tuple[bytes, bytes]]], rel: str) -> tuple[Offsets, list[Problem]]:
    """``config/rdb/`` table 1 (consumer offsets): (group, topic, queue id) -> int64 offset."""
    table: Offsets = {}
    problems = []
    for key, value in families.get("default", []):
        if len(key) < 4 or key[0] != TABLE_PREFIX or key[3] != RECORD_DATA:
            continue
        if V2KeyHead.parse(key).table_id != 1:
            continue
        try:
            k = V2OffsetKey.parse(key)
            topic, group = k.topic_bytes.decode("utf-8"), k.group_bytes.decode("utf-8")
        except Exception as e:  # noqa: BLE001 - construct's errors and UnicodeDecodeError: a damaged key
            problems.append(Problem(rel, 0, f"consumer-offset key {key.hex()[:80]} does not parse ({e}): ignored",
                                    "bad-config-entry", "warning", entry=key.hex()))
            continue
        if len(value) != 8:
            problems.append(Problem(rel, 0, f"consumer offset {topic}@{group} queue {k.queue_id}: value of "
                                    f"{len(value)} bytes, not an int64: ignored", "bad-config-entry", "warning",
                                    entry=key.hex()))
            continue
        table.setdefault((topic, group), {})[k.queue_id] = int.from_bytes(value, "big", signed=True)
    return table, problems


def v1_topics(families: dict[str, list[tuple[bytes, bytes]]], rel: str) -> tuple[dict[str, dict], list[Problem]]:
    """``config/topics/``: topic name -> the fastjson of its TopicConfig (``RocksDBTopicConfigManager``)."""
    return _named_objects(((key, value) for key, value in families.get("default", [])), rel)


def v2_topics(families: dict[str, list[tuple[bytes, bytes]]], rel: str) -> tuple[dict[str, dict], list[Problem]]:
    """``config/rdb/`` table 3: ``01 00 03 02 | int16 length | name`` -> type byte 1 (JSON) + TopicConfig JSON."""
    rows = []
    for key, value in families.get("default", []):
        if len(key) >= 6 and key[:4] == b"\x01\x00\x03\x02":
            size = int.from_bytes(key[4:6], "big", signed=True)
            if size != len(key) - 6 or not value or value[0] != SERIALIZATION_JSON:
                rows.append((key, b""))  # reported below: not the key or value TopicConfigManagerV2 writes
                continue
            rows.append((key[6:], value[1:]))
    return _named_objects(iter(rows), rel)


def _named_objects(rows, rel: str) -> tuple[dict[str, dict], list[Problem]]:
    table: dict[str, dict] = {}
    problems = []
    for key, value in rows:
        try:
            name, obj = key.decode("utf-8"), loads(value)
        except (UnicodeDecodeError, FastjsonError, RecursionError) as e:
            problems.append(Problem(rel, 0, f"entry {key[:60]!r} is not a name with a fastjson object ({e}): "
                                    "ignored", "bad-config-entry", "warning", entry=key.hex()))
            continue
        if isinstance(obj, dict):
            table[name] = obj
        else:
            problems.append(Problem(rel, 0, f"entry {name[:60]!r} is not an object: ignored", "bad-config-entry",
                                    "warning", entry=key.hex()))
    return table, problems


def summarize(root: Path) -> list[DatabaseSummary]:
    """Each config database present (v1 and v2), with its tables and their entry counts; an unreadable one
    says why (``error``) instead."""
    found = []
    for rel in (*V1_DATABASES, V2_DATABASE):
        path = root / rel
        if not path.is_dir():
            continue
        summary = DatabaseSummary(rel)
        found.append(summary)
        if not is_rocksdb_dir(path):
            summary.error = "no CURRENT file: not a RocksDB database"
            continue
        try:
            families = read_database(path, rel)
        except StoreError as e:
            summary.error = e.reason
            continue
        if rel == V2_DATABASE:
            summary.tables = _v2_tables(families.get("default", []))
        else:
            summary.tables = {name: len(rows) for name, rows in families.items()}
            version = dict(families.get(KV_DATA_VERSION_CF, [])).get(KV_DATA_VERSION_KEY)
            summary.data_version = version.decode("utf-8", "replace")[:200] if version else None
    return found


def _v2_tables(rows: list[tuple[bytes, bytes]]) -> dict[str, int]:
    """Entries per v2 table (TableId names), data versions apart; keys of no known table counted as 'other'."""
    counts: dict[str, int] = {}
    for key, _ in rows:
        if len(key) >= 4 and key[0] == TABLE_PREFIX and key[3] == RECORD_DATA:
            name = TABLES.get(V2KeyHead.parse(key).table_id, "other")
        elif len(key) >= 4 and key[0] == TABLE_PREFIX:
            name = "dataVersion"
        else:
            name = "other"
        counts[name] = counts.get(name, 0) + 1
    return counts



def topics_source(root: Path, config: BrokerConfig | None) -> str:
    """Where the broker keeps its topics (``BrokerController``: v2 ``TopicConfigManagerV2``, ``storeType=
    defaultRocksDB`` ``RocksDB[Lmq]TopicConfigManager``, else ``topics.json``); without a broker.conf the
    databases present decide."""
    if config is not None:
        if config.properties.get("configManagerVersion", "").strip().lower() == "v2":
            return V2_DATABASE
        if config.storeType == "defaultRocksDB":
            return "config/topics"
        if config.storeType is not None:
            return "config/topics.json"
    for rel in (V2_DATABASE, "config/topics"):
        if (root / rel).is_dir():
            return rel
    return "config/topics.json"


def apply_topic_database(config: ConfigSet, root: Path, broker: BrokerConfig | None) -> None:
    """Read the topics from the broker's RocksDB database into ``config`` when that is where it keeps them;
    a database that cannot be read is a finding and topics.json is used instead."""
    rel = topics_source(root, broker)
    if rel == "config/topics.json" or not (root / rel).is_dir():
        return
    try:
        families = read_database(root / rel, rel)
    except StoreError as e:
        config.problems.append(Problem(rel, 0, f"topics unreadable, config/topics.json used instead: {e.reason}",
                                       "unreadable-file"))
        return
    config.topic_table, found = (v2_topics if rel == V2_DATABASE else v1_topics)(families, rel)
    config.topics_source = rel
    config.problems.extend(found)
