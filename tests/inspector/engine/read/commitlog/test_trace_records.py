"""read/commitlog/trace.py over a store our writer made (tests/trace_store.py): each trace body's bytes equal the
ones packed by hand from the client encoder's format, decode to the values the store was made with, and one
message's timeline is found through the index, or by a scan of the trace topic's queues when there is none."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.engine import (
    TraceOther,
    TraceRecord,
    decode_trace,
    is_trace_topic,
    message_view,
    open_store,
    trace_of,
)
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.store import answers
from tests.trace_store import (
    END_TX_TEXT,
    OTHER_TEXT,
    PUB,
    PUB_TEXT,
    RECALL_TEXT,
    SUB_AFTER,
    SUB_BEFORE,
    SUB_TEXT,
    T0,
    UK,
    UK_TX,
    write_trace_store,
)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("trace") / "store"
    at = write_trace_store(root)
    return root, at


def test_bodies_are_the_client_encoders_bytes(made):
    root, at = made
    store = open_store(str(root))
    texts = {"pub": PUB_TEXT.format(offset_msg_id=at["msg_id"]), "sub": SUB_TEXT, "tx": END_TX_TEXT,
             "recall": RECALL_TEXT, "other": OTHER_TEXT}
    for name, text in texts.items():
        assert store.message_at(at[name]).body == text.encode(), name


def test_each_type_decodes_to_the_values_written(made):
    root, at = made
    store = open_store(str(root))
    (pub,) = decode_trace(store.message_at(at["pub"])).records
    assert pub == TraceRecord(index=0, type="Pub", shape="4.x/5.x", msg_id=UK, timestamp=T0 + 1,
                              region_id="DefaultRegion", group="pg", topic="TopicTest", tags="TagA",
                              keys="order-1 order-2", store_host="127.0.0.1:10911", body_length=5, cost_time=3,
                              success=True, offset_msg_id=at["msg_id"], msg_type="Normal_Msg")
    before, after = decode_trace(store.message_at(at["sub"])).records
    assert (before.type, before.group, before.request_id, before.retry_times) == ("SubBefore", "cg", "req-1", 0)
    assert (after.type, after.cost_time, after.success, after.context_code, after.timestamp) == (
        "SubAfter", 7, False, 1, T0 + 57)
    (tx,) = decode_trace(store.message_at(at["tx"])).records
    assert (tx.msg_id, tx.msg_type, tx.transaction_id, tx.transaction_state, tx.from_transaction_check) == (
        UK_TX, "Trans_Msg_Half", "tx-9", "COMMIT_MESSAGE", False)
    (recall,) = decode_trace(store.message_at(at["recall"])).records
    assert (recall.type, recall.topic, recall.success) == ("Recall", "TopicDelay", True)
    (other,) = decode_trace(store.message_at(at["other"])).records
    assert isinstance(other, TraceOther) and "SubAfter with 3 fields" in other.reason


def test_only_trace_topics_decode_and_the_json_view_carries_them(made):
    root, at = made
    store = open_store(str(root))
    assert decode_trace(store.message_at(at["message"])) is None
    assert "trace" not in message_view(store.message_at(at["message"]))
    view = message_view(store.message_at(at["sub"]))
    assert [r["type"] for r in view["trace"]["records"]] == ["SubBefore", "SubAfter"]
    assert view["body_base64"]  # the raw body stays
    assert is_trace_topic("rmq_sys_TRACE_DATA_region1") and is_trace_topic("MyTrace", "MyTrace")
    assert not is_trace_topic("MyTrace")


def test_timeline_through_the_index_by_either_id(made):
    root, at = made
    store = open_store(str(root))
    for ref in (UK, at["msg_id"]):
        timeline = trace_of(store, ref)
        assert timeline.source == "index"
        assert [e.record.type for e in timeline.entries] == ["Pub", "SubBefore", "SubAfter"]  # by time, not store
        assert [e.physical_offset for e in timeline.entries] == [at["pub"], at["sub"], at["sub"]]
        assert any("another shape" in n for n in timeline.notes)  # the other-shape body indexed under UK


def test_timeline_falls_back_to_a_scan_and_says_so(made, tmp_path: Path):
    root, _ = made
    copy = tmp_path / "noindex"
    shutil.copytree(root, copy)
    shutil.rmtree(copy / "index")
    timeline = trace_of(open_store(str(copy)), UK)
    assert timeline.source == "scan" and timeline.messages_read == 5
    assert [e.record.type for e in timeline.entries] == ["Pub", "SubBefore", "SubAfter"]


def test_unknown_id_finds_nothing(made):
    root, _ = made
    timeline = trace_of(open_store(str(root)), "7F00000100002A9F00000000000000FF")
    assert timeline.entries == () and timeline.source == "scan"


def _rolled_trace_store(root: Path) -> None:
    """M, its SubBefore + SubAfter, then its Pub, with index files of 8 items: M's 3 keys and the Sub message's 4
    fill the first file, the Pub's go to the second, which is then deleted (an abnormal start's loss)."""
    geometry = Geometry(segment_size=1 << 20, cq_file_size=6000, index_slots=16, index_items=8)
    with StoreWriter(root, geometry, clock=lambda: T0) as w:
        m = w.append(MessageSpec("TopicTest", b"hello", keys=["order-1", "order-2"], unique_key=UK,
                                 store_timestamp=T0))
        w.append(trace_spec([SUB_BEFORE, SUB_AFTER], store_timestamp=T0 + 60))
        w.append(trace_spec([dict(PUB, offset_msg_id=m.msg_id)], store_timestamp=T0 + 61))
    files = sorted((root / "index").iterdir())
    assert len(files) == 2
    files[-1].unlink()


def test_a_little_unindexed_log_is_scanned_beside_the_index(tmp_path: Path, monkeypatch):
    """The Pub in log no index covers is found by scanning that range beside the index (the answer says which);
    past UNINDEXED_SCAN_BYTES of such log the trace topics' queues are read instead ("scan")."""
    root = tmp_path / "rolled"
    _rolled_trace_store(root)
    with open_store(str(root), index_slots=16, index_items=8) as store:
        timeline = trace_of(store, UK)
        assert timeline.source == "index"
        assert [e.record.type for e in timeline.entries] == ["Pub", "SubBefore", "SubAfter"]
        assert any(n.startswith("no index covers ") and "scanned for trace records" in n for n in timeline.notes)
    monkeypatch.setattr(answers, "UNINDEXED_SCAN_BYTES", 0)
    with open_store(str(root), index_slots=16, index_items=8) as store:
        timeline = trace_of(store, UK)
        assert timeline.source == "scan" and timeline.messages_read == 2
        assert [e.record.type for e in timeline.entries] == ["Pub", "SubBefore", "SubAfter"]
