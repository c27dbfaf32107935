"""The TUI's message detail of a trace-topic record (a writer-made store, tests/trace_store.py) under the pilot:
the raw body, then each trace record of it with its fields by name; store text in them escaped."""

from __future__ import annotations

from tui_helpers import drive, static_text

from inspector.engine import open_store
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.tui.app import create_app
from inspector.tui.widgets.messagedetail import MessageDetail
from inspector.tui.widgets.messagelist import MessageList
from tests.trace_store import PUB, SUB_AFTER, T0, UK, write_trace_store


def _detail_of(root, offset: int, broker_config=None) -> str:
    store = open_store(str(root), broker_config=broker_config)
    app = create_app(store, screen="messages")

    async def script(pilot):
        lst = app.screen.query_one(MessageList)
        lst.cursor = next(i for i in range(len(lst.source)) if lst.source.offset(i) == offset)
        await pilot.pause()
        return static_text(app.screen.query_one(MessageDetail).query_one(".detail-content"))

    try:
        return drive(app, script)
    finally:
        store.close()


def test_the_detail_names_each_trace_field(tmp_path):
    at = write_trace_store(tmp_path / "store")
    text = _detail_of(tmp_path / "store", at["sub"])
    assert "Trace (2 trace records: SubBefore, SubAfter)" in text
    lines = [line.split() for line in text.splitlines()]
    assert ["request_id", "req-1"] in lines and ["cost_time", "7"] in lines and ["retry_times", "0"] in lines
    assert ["msg_id", UK] in lines
    assert "\x01" not in text and "\x02" not in text  # the raw body's separators are shown escaped


def test_store_text_in_a_trace_field_is_escaped(tmp_path):
    with StoreWriter(tmp_path / "evil", clock=lambda: T0) as w:
        pub = w.append(trace_spec([dict(PUB, group="g\x1b]0;pwned\x07"), SUB_AFTER], store_timestamp=T0))
    text = _detail_of(tmp_path / "evil", pub.physical_offset)
    assert "g\\x1b]0;pwned\\x07" in text and "\x1b" not in text


def test_the_broker_configs_trace_topic_is_decoded(tmp_path):
    """A custom trace topic (broker.conf's msgTraceTopicName) is decoded as show decodes it; without the config
    the same record is a topic like another (its raw body only)."""
    root = tmp_path / "custom"
    with StoreWriter(root, clock=lambda: T0) as w:
        pub = w.append(trace_spec([PUB, SUB_AFTER], topic="MyTrace", store_timestamp=T0)).physical_offset
    conf = tmp_path / "broker.conf"
    conf.write_text("msgTraceTopicName=MyTrace\n", encoding="utf-8")
    assert "Trace (" not in _detail_of(root, pub)
    text = _detail_of(root, pub, conf)
    assert "Trace (2 trace records: Pub, SubAfter)" in text
    assert ["msg_id", UK] in [line.split() for line in text.splitlines()]
