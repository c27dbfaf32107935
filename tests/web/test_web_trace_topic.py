"""The web viewer decodes the broker config's custom trace topic (msgTraceTopicName) as the CLI does: the message
page and its API, and the rows of /api/messages (in commitlog and in queue order); without the config the same
record is a topic like another. A writer-made store (tests/trace_store.py's records under topic MyTrace)."""

from __future__ import annotations

import pytest

from inspector.engine import open_store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.trace_store import PUB, SUB_AFTER, T0, UK
from web.app import create_app


@pytest.fixture(scope="module")
def custom(tmp_path_factory):
    base = tmp_path_factory.mktemp("web-trace-topic")
    root = base / "store"
    with StoreWriter(root, clock=lambda: T0) as w:
        w.append(MessageSpec("TopicTest", b"x", unique_key=UK, store_timestamp=T0))
        at = w.append(trace_spec([PUB, SUB_AFTER], topic="MyTrace", store_timestamp=T0 + 9)).physical_offset
    conf = base / "broker.conf"
    conf.write_text("msgTraceTopicName=MyTrace\n", encoding="utf-8")
    return root, conf, at


def _answers(root, conf, at: int) -> tuple[dict, dict, dict, str]:
    store = open_store(str(root), broker_config=conf)
    try:
        client = create_app(store, {"TESTING": True}).test_client()
        got = [client.get(url) for url in (f"/api/message/{at}", "/api/messages?limit=10",
                                           "/api/messages?topic=MyTrace&queue=0&limit=10", f"/message/{at}")]
        assert [r.status_code for r in got] == [200] * 4
        return got[0].get_json(), got[1].get_json(), got[2].get_json(), got[3].get_data(as_text=True)
    finally:
        store.close()


def test_the_broker_configs_trace_topic_is_decoded_on_the_web(custom):
    root, conf, at = custom
    one, log, queue, page = _answers(root, conf, at)
    assert [r["type"] for r in one["trace"]["records"]] == ["Pub", "SubAfter"]
    assert [bool(m.get("trace")) for m in log["messages"]] == [False, True]
    assert [m["trace"]["summary"] for m in queue["messages"]] == ["2 trace records: Pub, SubAfter"]
    assert "Trace records" in page and "2 trace records: Pub, SubAfter" in page


def test_without_the_config_it_is_a_topic_like_another(custom):
    root, _, at = custom
    one, log, queue, page = _answers(root, None, at)
    assert "trace" not in one and not any("trace" in m for m in log["messages"] + queue["messages"])
    assert "Trace records" not in page
