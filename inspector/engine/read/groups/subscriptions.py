"""The subscription-group configs, from where the broker keeps them (as its topics: ``BrokerController`` 5.3.1
builds ``SubscriptionGroupManager`` beside ``TopicConfigManager``): ``config/subscriptionGroup.json``
(``subscriptionGroupTable``), ``config/subscriptionGroups/`` (``storeType=defaultRocksDB``, 5.2.0+:
``RocksDBSubscriptionGroupManager``, group name -> the fastjson of its ``SubscriptionGroupConfig``) or
``config/rdb/`` table 4 (``configManagerVersion=v2``, 5.3.2+: ``SubscriptionGroupManagerV2``, keyed and valued
as the topic table 3 is: ``01 | int16 4 | 02 | int16 length | name`` -> type byte 1 + JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem
from inspector.engine.read.config.offsets import OffsetPlaces
from inspector.engine.read.config.rocksdb_config import V2_DATABASE, read_database
from parsers.fastjson import FastjsonError, loads
from parsers.rocksdb_config import SERIALIZATION_JSON

JSON_FILE = "config/subscriptionGroup.json"
V1_DATABASE = "config/subscriptionGroups"
_V2_HEAD = b"\x01\x00\x04\x02"  # TABLE_PREFIX, TableId.SUBSCRIPTION_GROUP (4), RecordPrefix.DATA


@dataclass
class SubscriptionGroups:
    """group name -> its ``SubscriptionGroupConfig`` as stored, from ``source``; ``problems``: entries left out
    and a database that could not be read (then the JSON file is used, and said)."""

    source: str
    table: dict[str, dict] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def _source(places: OffsetPlaces) -> str:
    config = places.broker_config
    if config is not None:
        if config.properties.get("configManagerVersion", "").strip().lower() == "v2":
            return V2_DATABASE
        if config.storeType == "defaultRocksDB":
            return V1_DATABASE
        if config.storeType is not None:
            return JSON_FILE
    for rel in (V2_DATABASE, V1_DATABASE):
        if (places.root / rel).is_dir():
            return rel
    return JSON_FILE


def _json_table(places: OffsetPlaces) -> dict[str, dict]:
    table = places.config.value("subscriptionGroup.json").get("subscriptionGroupTable", {})
    if not isinstance(table, dict):
        return {}  # the config's own findings say the file is not the object the broker writes
    return {name: value for name, value in table.items() if isinstance(name, str) and isinstance(value, dict)}


def _rows(families: dict[str, list[tuple[bytes, bytes]]], source: str) -> list[tuple[bytes, bytes]]:
    rows = families.get("default", [])
    if source == V1_DATABASE:
        return rows
    picked = []
    for key, value in rows:
        if key[:4] == _V2_HEAD and len(key) >= 6 and value[:1] == bytes([SERIALIZATION_JSON]):
            picked.append((key[6:], value[1:]))
    return picked


def load_subscription_groups(places: OffsetPlaces) -> SubscriptionGroups:
    """The subscription groups from the broker's place for them; a RocksDB one that cannot be read is a finding,
    and ``subscriptionGroup.json`` is used instead."""
    source = _source(places)
    if source == JSON_FILE or not (places.root / source).is_dir():
        return SubscriptionGroups(JSON_FILE, _json_table(places))
    try:
        families = read_database(places.root / source, source)
    except StoreError as e:
        return SubscriptionGroups(JSON_FILE, _json_table(places), [
            Problem(source, 0, f"subscription groups unreadable, {JSON_FILE} used instead: {e.reason}",
                    "unreadable-file", "warning")])
    result = SubscriptionGroups(source)
    for key, value in _rows(families, source):
        try:
            name, obj = key.decode("utf-8"), loads(value)
        except (UnicodeDecodeError, FastjsonError, RecursionError) as e:
            result.problems.append(Problem(source, 0, f"entry {key[:60]!r} is not a group name with a fastjson "
                                           f"object ({e}): ignored", "bad-config-entry", "warning"))
            continue
        if isinstance(obj, dict):
            result.table[name] = obj
        else:
            result.problems.append(Problem(source, 0, f"entry {name[:60]!r} is not an object: ignored",
                                           "bad-config-entry", "warning"))
    return result
