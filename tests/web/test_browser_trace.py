"""A trace-topic record's page in real headless Chromium (the fixtures of test_browser.py): under the raw body,
each trace record of the body with its fields by name, the other shape with its reason, and store text (a group
carrying markup and an escape) shown as text, never run. Values from how the store was made (tests/trace_store.py)."""

from __future__ import annotations

import pytest
from test_browser import page, pytestmark, served, shot  # noqa: F401 - fixtures, timeout and skip shared

from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.trace_store import PUB, SUB_AFTER, T0, UK, write_trace_store
from web.app import create_app

EVIL = "pg<img src=x onerror=alert(1)>\x1b[31m"


@pytest.fixture(scope="module")
def trace_live(tmp_path_factory):
    root = tmp_path_factory.mktemp("trace-web") / "store"
    at = write_trace_store(root)
    app = create_app(root)
    try:
        with served(app) as url:
            yield url, at
    finally:
        app.extensions["rmq_store"].close()


def test_trace_records_by_name_under_the_body(page, trace_live):  # noqa: F811
    url, at = trace_live
    page.goto(f"{url}/message/{at['sub']}")
    assert "SubBefore" in page.locator("#body").inner_text()  # the raw body stays
    assert "2 trace records: SubBefore, SubAfter" in page.locator("h2", has_text="Trace records").inner_text()
    after = page.locator("#trace-1")
    assert after.locator("tr", has_text="cost_time").locator("td").inner_text() == "7"
    assert after.locator("tr", has_text="request_id").locator("td").inner_text() == "req-1"
    assert after.locator("tr", has_text="msg_id").locator("td").inner_text() == UK
    shot(page.locator("#trace"), "trace-records.png")
    page.goto(f"{url}/message/{at['other']}")
    assert "SubAfter with 3 fields" in page.locator("#trace-0").inner_text()
    assert not page.errors


def test_store_text_in_a_trace_record_is_text(page, tmp_path):  # noqa: F811
    root = tmp_path / "evil"
    with StoreWriter(root, clock=lambda: T0) as w:
        pub = w.append(trace_spec([dict(PUB, group=EVIL), SUB_AFTER], store_timestamp=T0))
    app = create_app(root)
    try:
        with served(app) as url:
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(f"{url}/message/{pub.physical_offset}")
            group = page.locator("#trace-0 tr", has_text="group").locator("td").inner_text()
            assert group == "pg<img src=x onerror=alert(1)>\\x1b[31m"
            assert page.locator("#trace img").count() == 0 and not dialogs
    finally:
        app.extensions["rmq_store"].close()
