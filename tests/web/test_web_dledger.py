"""The web viewer on the DLedger sample (issue 19): the overview's DLedger section and term timeline, a record at
pos + 48 with its entry, the hex page, the JSON API."""

from __future__ import annotations

from pathlib import Path

import pytest

from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store_dledger"


@pytest.fixture(scope="module")
def client():
    app = create_app(SAMPLE)
    app.config["TESTING"] = True
    return app.test_client()


def get(client, url):
    return client.get(url, headers={"Host": "127.0.0.1"})


def test_overview_shows_the_term_timeline(client) -> None:
    page = get(client, "/").data.decode()
    assert 'id="dledger"' in page and 'id="terms"' in page
    assert '<a href="/message/120893">120893</a>' in page  # term 2 starts at index 120, pos 120845 + 48
    api = get(client, "/api/").get_json()
    assert [t["term"] for t in api["dledger"]["terms"]] == [1, 2, 4]


def test_message_and_hex_pages(client) -> None:
    assert get(client, "/message/65584").status_code == 200
    msg = get(client, "/api/message/65584").get_json()
    assert msg["dledger"]["raft_index"] == 0 and int(msg["physical_offset"]) == 65_584  # the API: offsets as text
    assert get(client, "/hex?offset=65536&length=128").status_code == 200
    assert get(client, "/messages").status_code == 200


def test_hex_draws_the_entry_header_as_its_own_band(client) -> None:
    page = get(client, "/hex?offset=65536&length=96").data.decode()
    assert "r-entry" in page and "DLedger entry 0, term 1" in page
    assert "#E5 entry pos = 65536" in page  # the field under the mouse: pos, 24 bytes in
    data = get(client, "/api/hex?offset=65536&length=96").get_json()
    entry = next(r for r in data["regions"] if r["kind"] == "entry")
    assert (int(entry["start"]), int(entry["end"])) == (65_536, 65_584)
    assert [f["name"] for f in entry["fields"]][:5] == ["entry magic", "entry size", "entry index", "entry term",
                                                        "entry pos"]
