"""The index chain screen's topic and key fields show `e.g. …` placeholders (issue 33): they read as examples,
and an untouched field's value is empty, so `w` asks for a topic and a key instead of walking the example."""

from __future__ import annotations

from tui_helpers import drive, settle


def test_chain_fields_are_empty_with_example_placeholders(store):
    from inspector.tui.app import create_app

    app = create_app(store, background_scan=False, screen="chain")

    async def script(pilot):
        fields = [app.screen.query_one(f"#c-{n}") for n in ("topic", "key")]
        await settle(pilot)
        return [(f.placeholder, f.value) for f in fields]

    assert drive(app, script) == [("e.g. OrderEvents", ""), ("e.g. order-1108", "")]
