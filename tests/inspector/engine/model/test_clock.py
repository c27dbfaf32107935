"""The output zone (model/clock.py): every shown time writes its offset, ``--utc`` switches all of them (the CLI's,
the TUI's and the web's ``when`` are the one ``short_time``) and a zoneless ISO input is read in the same zone."""

from __future__ import annotations

import time

import pytest

from inspector.engine import STORE_TIME, fmt_time, is_utc, set_utc, short_time, window_text, zone_label

MS = 1_758_289_689_632  # 2025-09-19T13:48:09.632Z


@pytest.fixture
def shanghai(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    set_utc(False)
    monkeypatch.delenv("TZ")
    time.tzset()


def test_local_and_utc_output(shanghai):
    from inspector.cli.output import when as cli_when
    from inspector.tui.fmt import when as tui_when
    from web.pages import when as web_when

    assert fmt_time(MS) == "2025-09-19T21:48:09.632+08:00" and zone_label().endswith("+08:00")
    assert short_time(MS) == cli_when(MS) == tui_when(MS) == web_when(MS) == "2025-09-19 21:48:09.632 +08:00"
    assert short_time(MS, "s") == "2025-09-19 21:48:09 +08:00" and short_time(MS, "min") == "2025-09-19 21:48 +08:00"
    set_utc(True)
    assert is_utc() and zone_label() == "UTC"
    assert fmt_time(MS) == "2025-09-19T13:48:09.632+00:00" and tui_when(MS) == "2025-09-19 13:48:09.632 +00:00"
    assert window_text(MS, None) == "at or after 2025-09-19 13:48:09.632 +00:00"
    assert short_time(None) == short_time(0) == "-"


def test_a_zoneless_iso_time_is_read_in_the_output_zone(shanghai):
    assert STORE_TIME.parse("2025-09-19T21:48:09.632", "--since") == MS
    assert STORE_TIME.parse("2025-09-19T13:48:09.632Z", "--since") == MS  # a zone wins
    set_utc(True)
    assert STORE_TIME.parse("2025-09-19T13:48:09.632", "--since") == MS
    assert STORE_TIME.parse("2025-09-19T21:48:09.632+08:00", "--since") == MS


def test_web_pages_follow_utc(shanghai):
    from pathlib import Path

    from web.app import create_app

    app = create_app(Path(__file__).resolve().parents[4] / "sample_store", {"TESTING": True})
    try:
        client = app.test_client()
        local = client.get(f"/messages?since={MS}&limit=1").get_data(as_text=True)
        set_utc(True)
        utc = client.get(f"/messages?since={MS}&limit=1").get_data(as_text=True)
    finally:
        app.extensions["rmq_store"].close()
    assert "2025-09-19 21:48:09.632 +08:00" in local and "2025-09-19 13:48:09.632 +00:00" in utc


def test_a_time_as_shown_reads_back():
    for shown in ("2025-09-19 13:48:09.632 +00:00", "2025-09-19 21:48:09.632 +08:00",
                  "2025-09-19 13:48:09.632 Z"):
        assert STORE_TIME.parse(shown, "--since") == MS, shown
    assert STORE_TIME.read("13:48 +08:00") is None  # still no date, no time
