"""The writer's BatchCQ topics (spec §2.10, §4.3, §7.2): inner-batch records and 46-byte batch consume-queue units,
checked against bytes assembled here by hand from the spec's tables, not by the writer's own schemas."""

from __future__ import annotations

import socket
import struct
import sys
import zlib
from pathlib import Path

import pytest

from inspector.engine.maintain.rebuild.bcq_builder import bcq_unit_bytes
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.errors import BadInput
from parsers.consumequeue import BatchConsumeQueueUnit
from parsers.fastjson import loads
from parsers.java import java_string_hash

sys.path.insert(0, str(Path(__file__).parents[4]))
from batch_store import ATTRIBUTES, BATCH_TOPIC, T0, inner, write_batch_store  # noqa: E402


def _item(flag: int, body: bytes, props: bytes) -> bytes:  # spec §2.10 item table
    return struct.pack(">iiiii", 22 + len(body) + len(props), 0, 0, flag, len(body)) + body + \
        struct.pack(">h", len(props)) + props


def _record(body: bytes, topic: bytes, props: bytes, queue_offset: int, physical_offset: int, sys_flag: int,
            store_ts: int) -> bytes:  # spec §2.1, v1, IPv4/IPv4: born host 127.0.0.1:0, store host 127.0.0.1:10911
    total = 91 + len(body) + len(topic) + len(props)
    return (struct.pack(">iIiiiqqiq", total, 0xDAA320A7, zlib.crc32(body) & 0x7FFFFFFF, 0, 0, queue_offset,
                        physical_offset, sys_flag, store_ts)
            + socket.inet_aton("127.0.0.1") + struct.pack(">i", 0) + struct.pack(">q", store_ts)
            + socket.inet_aton("127.0.0.1") + struct.pack(">i", 10911) + struct.pack(">iq", 0, 0)
            + struct.pack(">i", len(body)) + body + struct.pack(">b", len(topic)) + topic
            + struct.pack(">h", len(props)) + props)


def _bcq_unit(phy: int, size: int, tags: int, ts: int, base: int, batch: int) -> bytes:  # spec §4.3 table
    return struct.pack(">qiqqqhii", phy, size, tags, ts, base, batch, -1, 0)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    root = tmp_path_factory.mktemp("bcq") / "store"
    return root, write_batch_store(root)


def test_inner_batch_record_is_the_bytes_the_spec_gives(written) -> None:
    root, results = written
    r = results[1]
    keys = r.inner_unique_keys
    body = b"".join(_item(0, f"inner body {i}".encode(),
                          f"TAGS\x01Tag{i % 2}\x02KEYS\x01key{i}\x02UNIQ_KEY\x01{keys[i]}\x02".encode())
                    for i in range(4))
    props = (f"WAIT\x01true\x02UNIQ_KEY\x01{r.unique_key}\x02CLUSTER\x01DefaultCluster\x02"
             "INNER_NUM\x014\x02INNER_BASE\x010\x02").encode()
    expected = _record(body, BATCH_TOPIC.encode(), props, 0, r.physical_offset, 0xC0, T0 + 1)
    log = (root / "commitlog" / "00000000000000000000").read_bytes()
    assert log[r.physical_offset : r.physical_offset + r.total_size] == expected
    second = results[2]
    record = log[second.physical_offset : second.physical_offset + second.total_size]
    assert b"INNER_NUM\x013\x02INNER_BASE\x014\x02" in record
    assert struct.unpack_from(">q", record, 20)[0] == 4  # QUEUEOFFSET = INNER_BASE


def test_batch_queue_units_at_offsets_0_4_7(written) -> None:
    root, results = written
    path = root / "batchconsumequeue" / BATCH_TOPIC / "0" / "00000000000000000000"
    data = path.read_bytes()
    assert len(data) == 13_800_000
    r1, r2, r3 = results[1:4]
    expected = (_bcq_unit(r1.physical_offset, r1.total_size, 0, T0 + 1, 0, 4)
                + _bcq_unit(r2.physical_offset, r2.total_size, 0, T0 + 2, 4, 3)
                + _bcq_unit(r3.physical_offset, r3.total_size, java_string_hash("TagS"), T0 + 3, 7, 1))
    assert data[: len(expected)] == expected and not any(data[len(expected):])
    assert not (root / "consumequeue" / BATCH_TOPIC).exists()
    assert (root / "consumequeue" / "Plain" / "0").is_dir()


def test_topics_json_says_batch_cq(written) -> None:
    root, _ = written
    table = loads((root / "config" / "topics.json").read_text())["topicConfigTable"]
    assert table[BATCH_TOPIC]["attributes"] == {"queue.type": "BatchCQ"}
    assert table["Plain"]["attributes"] == {}


def test_unit_packer_equals_schema() -> None:
    values = dict(physical_offset=168, size=589, tags_code=-5, store_timestamp=T0, msg_base_offset=4, batch_size=3,
                  compacted_offset=-1, reserved=0)
    assert bcq_unit_bytes(168, 589, -5, T0, 4, 3) == BatchConsumeQueueUnit.build(values) == \
        _bcq_unit(168, 589, -5, T0, 4, 3)


def test_batch_from_json_lines_object() -> None:
    spec = MessageSpec.from_json({"topic": BATCH_TOPIC, "batch": [{"body": "a", "tags": "x"}, {"body": "b"}]})
    assert spec.batch is not None and [m.body for m in spec.batch] == [b"a", b"b"]
    with pytest.raises(BadInput, match=r"batch\[1\]: unknown"):
        MessageSpec.from_json({"topic": BATCH_TOPIC, "batch": [{"body": "a"}, {"nope": 1}]})
    with pytest.raises(BadInput, match="inner message cannot hold a batch"):
        MessageSpec.from_json({"topic": BATCH_TOPIC, "batch": [{"batch": []}]})


@pytest.mark.parametrize("spec, message", [
    (MessageSpec("Plain", b"", batch=[inner(0)]), "not a BatchCQ topic"),
    (MessageSpec(BATCH_TOPIC, b"", batch=[]), "at least one message"),
    (MessageSpec(BATCH_TOPIC, b"x", batch=[inner(0)]), "cannot set body"),
    (MessageSpec(BATCH_TOPIC, b"", tags="t", batch=[inner(0)]), "cannot set tags"),
    (MessageSpec(BATCH_TOPIC, b"", batch=[inner(0, delay_level=2)]), r"batch\[0\] cannot set delay_level"),
    (MessageSpec(BATCH_TOPIC, b"", batch=[MessageSpec("Other", b"")]), "differs from the batch"),
    (MessageSpec(BATCH_TOPIC, b"", batch=[inner(0, properties={"INNER_NUM": "9"})]), "set by the writer"),
])
def test_bad_batches_are_refused_and_write_nothing(tmp_path, spec, message) -> None:
    with StoreWriter(tmp_path / "s", clock=lambda: T0, topic_attributes=ATTRIBUTES) as w:
        with pytest.raises(BadInput, match=message):
            w.append(spec)
        assert w.max_physical_offset == 0
