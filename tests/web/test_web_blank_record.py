"""A BLANK record and a ``from`` inside a record (issue 33): /message/<a BLANK's offset> said "magic code CBD43194
is not a message magic" (CBD43194 is BLANK_MAGIC_CODE); /messages?from=<inside a BLANK> reported a segment
"without a BLANK record" (no-blank) that has one, and from inside a message a bad magic."""

from __future__ import annotations

import re

import pytest

from inspector.engine import Blank, Message

ROW = re.compile(r'<tr data-offset="(\d+)">')


@pytest.fixture(scope="module")
def first_blank(sample_store) -> tuple[Blank, Message]:
    """The first segment's BLANK and the message after it (the next segment's first)."""
    entries = list(sample_store.entries())
    i = next(i for i, e in enumerate(entries) if isinstance(e, Blank))
    return entries[i], next(e for e in entries[i:] if isinstance(e, Message))


def test_a_blank_record_is_named_with_its_size_and_links_the_next_record(client, first_blank):
    blank, after = first_blank
    r = client.get(f"/message/{blank.physical_offset}")
    html = r.get_data(as_text=True)
    assert r.status_code == 404  # no message there: but the page says what is
    assert (f"physical offset {blank.physical_offset} holds a BLANK record (end-of-segment filler of "
            f"{blank.total_size} bytes") in html and "not a message" in html
    assert "is not a message magic" not in html
    assert f'href="/message/{after.physical_offset}">next record ▶' in html
    assert client.get(f"/message/{after.physical_offset}").status_code == 200
    api = client.get(f"/api/message/{blank.physical_offset}")
    assert api.status_code == 404 and "holds a BLANK record" in api.get_json()["message"]


def test_a_from_inside_a_blank_says_so_and_lists_from_the_next_segment(client, first_blank):
    blank, after = first_blank
    inside = blank.physical_offset + 12
    html = client.get(f"/messages?from={inside}&limit=2").get_data(as_text=True)
    assert "no-blank" not in html and "without a BLANK" not in html
    assert (f"from {inside} is inside the BLANK record (end-of-segment filler of {blank.total_size} bytes) at "
            f"{blank.physical_offset}") in html
    assert ROW.findall(html)[0] == str(after.physical_offset)


def test_a_from_inside_a_message_says_which_record_holds_it(client, sample_messages):
    m, after = sample_messages[5], sample_messages[6]
    assert after.physical_offset == m.end_offset
    inside = m.physical_offset + 100
    r = client.get(f"/api/messages?from={inside}&limit=1").get_json()
    assert r["from_note"].startswith(f"from {inside} is inside the record at {m.physical_offset} "
                                     f"({m.total_size} bytes)")
    assert not r["problems"] and r["messages"][0]["physical_offset"] == str(after.physical_offset)
