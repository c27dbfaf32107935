"""Long values (issue 33): a 200-character topic (legal in RocketMQ 5) made /messages 2,677 px wide at 1,600 px.
Long values wrap, wide tables scroll in their own box: no page is wider than the window, on a phone or a laptop."""

from __future__ import annotations

import pytest
from test_browser import pytestmark, served, shot  # noqa: F401 - fixtures, timeout and skip shared

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from web.app import create_app

LONG_TOPIC = "Long" + "-".join(f"segment{i:02d}" for i in range(20)) + "x" * 16  # no break at '-' needed either
LONG_TOPIC = (LONG_TOPIC + "T" * 200)[:200]


@pytest.fixture(scope="module")
def long_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("long") / "store"
    geometry = Geometry(segment_size=1 << 16, cq_file_size=200, index_slots=16, index_items=64)
    with StoreWriter(root, geometry, store_host="10.0.0.1:10911") as w:
        first = w.append(MessageSpec(topic=LONG_TOPIC, body=b"B" * 300, keys=["K" * 120, "short"], tags="T" * 90,
                                     store_timestamp=1_758_272_400_000))
        w.append(MessageSpec(topic="Plain", body=b'{"ok": true}', keys=["k1"], store_timestamp=1_758_272_401_000))
    with Store(root) as store:
        yield store, first.physical_offset


@pytest.fixture(scope="module")
def long_live(long_store):
    with served(create_app(long_store[0])) as url:
        yield url


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)], ids=["laptop", "phone"])
def test_no_page_is_wider_than_the_window(browser, long_live, long_store, size):  # noqa: F811
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    try:
        page = context.new_page()
        for path in ("/", "/messages", f"/message/{long_store[1]}"):
            page.goto(f"{long_live}{path}")
            assert LONG_TOPIC in page.content() or path == "/"
            scroll = page.evaluate("document.documentElement.scrollWidth")
            shot(page, f"long-values-{width}{path.replace('/', '-')}.png")  # looked at: wrapped, no overflow
            assert scroll <= width, f"{path} at {width}x{height} is {scroll} px wide"
    finally:
        context.close()
