"""LMQ multi-dispatch end to end (spec part 2 §17; MultiDispatch / ConsumeQueue.multiDispatchLmqQueue of
rocketmq-all-5.3.1): the writer's records and units against bytes spelt out by hand, browsing an %LMQ% queue
in its own offsets, verify of each LMQ unit, rebuild byte-identical, lmqConsumerOffset.json."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.engine import BadInput, Store, verify
from inspector.engine.maintain.rebuild.rebuild import rebuild
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.lmq_store import LMQ, T0, write_lmq_store

REPO = Path(__file__).resolve().parents[5]
CQ = "consumequeue/%LMQ%x/0/00000000000000000000"


def _sizes(root: Path) -> list[int]:
    """TOTALSIZE of each record, read from the segment's own first field (not through the engine)."""
    data = (root / "commitlog" / "00000000000000000000").read_bytes()
    sizes, pos = [], 0
    while len(sizes) < 3:
        sizes.append(struct.unpack_from(">i", data, pos)[0])
        pos += sizes[-1]
    return sizes


def test_records_carry_the_broker_properties(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    data = (root / "commitlog" / "00000000000000000000").read_bytes()
    s0, s1, _ = _sizes(root)
    # producer: TAGS, INNER_MULTI_DISPATCH; broker: CLUSTER, then wrapMultiDispatch's INNER_MULTI_QUEUE_OFFSET
    first = b"TAGS\x01t1\x02KEYS\x01k1\x02INNER_MULTI_DISPATCH\x01%LMQ%x\x02CLUSTER\x01DefaultCluster\x02INNER_MULTI_QUEUE_OFFSET\x010\x02"
    assert data[s0 - len(first) - 2:s0] == struct.pack(">h", len(first)) + first
    second = b"INNER_MULTI_DISPATCH\x01%LMQ%y,%LMQ%x\x02CLUSTER\x01DefaultCluster\x02INNER_MULTI_QUEUE_OFFSET\x010,1\x02"
    assert data[s0 + s1 - len(second):s0 + s1] == second


def test_lmq_units_are_what_multi_dispatch_writes(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    s0, s1, s2 = _sizes(root)
    t1 = 116 * 31 + 49  # "t1".hashCode()
    units = struct.pack(">qiq", 0, s0, t1) + struct.pack(">qiq", s0, s1, 0) + struct.pack(">qiq", s0 + s1, s2, 0)
    x = (root / CQ).read_bytes()
    assert x[:60] == units and x[60:] == bytes(len(x) - 60)
    y = (root / "consumequeue/%LMQ%y/0/00000000000000000000").read_bytes()
    assert y[:20] == struct.pack(">qiq", s0, s1, 0)
    own = (root / "consumequeue/TopicA/0/00000000000000000000").read_bytes()  # the record's own queue as before
    assert own[:40] == struct.pack(">qiq", 0, s0, t1) + struct.pack(">qiq", s0 + s1, s2, 0)
    # IndexService indexes the record's own topic only: TopicA#k1 and no %LMQ%x#k1 -> indexCount 1 + 1 item
    (index,) = (root / "index").iterdir()
    assert struct.unpack_from(">ii", index.read_bytes(), 32) == (1, 2)  # hashSlotCount, indexCount (spec §5.2)


def test_browsing_an_lmq_queue_gives_its_own_offsets(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    with Store(root) as store:
        rows = [(u.queue_offset, m.topic, m.queue_id, m.queue_offset, m.record_queue_offset)
                for u, m in store.queue_messages(LMQ, 0)]
        assert rows == [(0, "TopicA", 0, 0, 0), (1, "TopicA", 0, 1, 0), (2, "TopicA", 0, 2, 1)]
        assert store.message_by_queue_offset(LMQ, 0, 1).queue_offset == 1
        assert [m.queue_offset for _, m in store.queue_messages("TopicA", 0)] == [0, 1]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "inspector.cli.main", "messages", str(root), "--topic", LMQ,
                          "--queue", "0", "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(m["queue_offset"], m["lmq"]["record_queue_offset"]) for m in lines] == [(0, 0), (1, 0), (2, 1)]


def test_verify_checks_each_lmq_unit_against_its_record(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    with Store(root) as store:
        assert verify(store).problems == ()
    path = root / CQ
    data = bytearray(path.read_bytes())
    data[0:20], data[20:40] = data[20:40], data[0:20]  # units 0 and 1 swapped
    path.write_bytes(bytes(data))
    with Store(root) as store:
        found = {(p.file, p.offset, p.code): p.reason for p in verify(store).problems}
    reason = found[(CQ, 0, "cq-mismatch")]
    assert "INNER_MULTI_QUEUE_OFFSET 1 for '%LMQ%x' (position 1 of INNER_MULTI_DISPATCH)" in reason
    assert "INNER_MULTI_QUEUE_OFFSET 0" in found[(CQ, 20, "cq-mismatch")]


def test_verify_names_a_record_that_does_not_name_the_queue(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    s0, _, _ = _sizes(root)
    path = root / "consumequeue/%LMQ%y/0/00000000000000000000"
    data = bytearray(path.read_bytes())
    data[0:12] = struct.pack(">qi", 0, s0)  # unit 0 of %LMQ%y now points at the first record (names %LMQ%x only)
    path.write_bytes(bytes(data))
    with Store(root) as store:
        (p,) = [p for p in verify(store).problems if p.code == "cq-mismatch"]
    assert p.file == "consumequeue/%LMQ%y/0/00000000000000000000" and p.offset == 0
    assert "not multi-dispatched to '%LMQ%y'" in p.reason


def test_rebuild_recreates_lmq_queues_byte_identical(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    with Store(root) as store:
        result = rebuild(store, tmp_path / "out")
    for rel in (CQ, "consumequeue/%LMQ%y/0/00000000000000000000", "consumequeue/TopicA/0/00000000000000000000",
                "consumequeue/TopicA/1/00000000000000000000"):
        assert (tmp_path / "out" / rel).read_bytes() == (root / rel).read_bytes(), rel
    assert result.cq_units == 7 and result.index_items == 1 and not result.skipped
    assert next((tmp_path / "out" / "index").iterdir()).read_bytes() == next((root / "index").iterdir()).read_bytes()


def test_lmq_consumer_offsets_file_and_lag(tmp_path):
    root = write_lmq_store(tmp_path / "s")
    assert not (root / "config" / "consumerOffset.json").exists()  # an enableLmq broker keeps none
    text = (root / "config" / "lmqConsumerOffset.json").read_text()
    assert '"lmqOffsetTable":{\n\t\t"%LMQ%x@%LMQ%x":2\n\t}' in text and '"TopicA@g":{0:1\n\t\t}' in text
    with Store(root) as store:
        assert store.consumer_offsets().source == "config/lmqConsumerOffset.json"
        lag = {(r["topic"], r["queue_id"]): r["lag"] for r in store.consumer_lag()}
    assert lag == {(LMQ, 0): 1, ("TopicA", 0): 1}


@pytest.mark.parametrize("spec, why", [
    (dict(lmq_queues=["plain"]), "is not an LMQ queue name"),
    (dict(lmq_queues=["%LMQ%a,b"]), "is not an LMQ queue name"),
    (dict(lmq_queues=["%LMQ%a", "%LMQ%a"]), "names a queue twice"),
    (dict(lmq_queues=["%LMQ%a"], delay_level=2), "only for ordinary messages"),
    (dict(lmq_queues=["%LMQ%a"], topic="%RETRY%g"), "never multi-dispatched"),
])
def test_writer_refuses_what_no_broker_writes(tmp_path, spec, why):
    with StoreWriter(tmp_path / "s", clock=lambda: T0) as w:
        with pytest.raises(BadInput, match=why):
            w.append(MessageSpec(**{"topic": "TopicA", "body": b"x", **spec}))


def test_jsonl_key(tmp_path):
    spec = MessageSpec.from_json({"topic": "TopicA", "body": "x", "lmq_queues": ["%LMQ%a"]})
    assert spec.lmq_queues == ["%LMQ%a"]
    with pytest.raises(BadInput, match="lmq_queues must be a list"):
        MessageSpec.from_json({"topic": "TopicA", "lmq_queues": "%LMQ%a"})
