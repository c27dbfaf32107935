"""RocketMQ 5 RocksDB config databases (spec §7.8): keys of the "v2" store at ``config/rdb/``.

The "v1" databases (``config/topics/``, ``config/subscriptionGroups/``, ``config/consumerOffsets/``) need no
schema: key = name (or ``topic@group``) as UTF-8, value = fastjson of one object, and a ``kvDataVersion`` column
family holding ``kvDataVersionKey`` -> DataVersion JSON (``common/.../config/ConfigRocksDBStorage.java``).

v2 (``broker/.../config/v2/``, 5.3.2+ with ``configManagerVersion=v2``): one database, default column family,
every key ``01 | int16 table id | record prefix | ...`` (``TablePrefix.TABLE``, ``TableId``, ``RecordPrefix``):

* record prefix 1 (DATA_VERSION): ``data_version`` -> int64 state version, int64 timestamp, int64 counter;
* record prefix 2 (DATA), topics / subscription groups (``ConfigHelper.keyBufOf``): int16 name length, name;
  value = 1 serialization-type byte (1 = JSON) + fastjson of the object (``ConfigHelper.valueBufOf``);
* record prefix 2, consumer / pull offsets (``ConsumerOffsetManagerV2.keyOfConsumerOffset``): int16 group
  length, group, 0x01, int16 topic length, topic, 0x01, int32 queue id; value = int64 offset.
"""

from __future__ import annotations

from construct import Bytes, Const, Int8ub, Int16sb, Int32sb, Int64sb, Rebuild, Struct, len_, this

TABLE_PREFIX = 1  # TablePrefix.TABLE
TABLES = {1: "consumerOffset", 2: "pullOffset", 3: "topic", 4: "subscriptionGroup"}  # TableId
RECORD_DATA_VERSION = 1  # RecordPrefix.DATA_VERSION
RECORD_DATA = 2  # RecordPrefix.DATA
DATA_VERSION_KEY = b"data_version"  # ConfigStorage.DATA_VERSION_KEY
SERIALIZATION_JSON = 1  # SerializationType.JSON
KV_DATA_VERSION_CF = "kvDataVersion"  # v1: ConfigRocksDBStorage.KV_DATA_VERSION_COLUMN_FAMILY_NAME
KV_DATA_VERSION_KEY = b"kvDataVersionKey"  # v1: ConfigRocksDBStorage.KV_DATA_VERSION_KEY

V2KeyHead = Struct(
    "table_prefix" / Int8ub * "1: TablePrefix.TABLE",
    "table_id" / Int16sb * "TableId: 1 consumer offset, 2 pull offset, 3 topic, 4 subscription group",
    "record_prefix" / Int8ub * "RecordPrefix: 1 data version, 2 data",
)
"""The first 4 bytes of every v2 key."""

V2OffsetKey = Struct(
    "head" / V2KeyHead,
    "group_length" / Rebuild(Int16sb, len_(this.group_bytes)),
    "group_bytes" / Bytes(this.group_length) * "consumer group, UTF-8",
    Const(b"\x01"),
    "topic_length" / Rebuild(Int16sb, len_(this.topic_bytes)),
    "topic_bytes" / Bytes(this.topic_length) * "topic, UTF-8",
    Const(b"\x01"),
    "queue_id" / Int32sb,
)
"""Key of a consumer (table 1) or pull (table 2) offset; the value is one int64 offset."""

V2NamedKey = Struct(
    "head" / V2KeyHead,
    "name_length" / Rebuild(Int16sb, len_(this.name_bytes)),
    "name_bytes" / Bytes(this.name_length) * "topic or group name, UTF-8",
)
"""Key of a topic (table 3) or subscription group (table 4); the value is a type byte + JSON."""

V2DataVersion = Struct("state_version" / Int64sb, "timestamp" / Int64sb, "counter" / Int64sb)
"""Value of a table's ``data_version`` record (24 bytes)."""
