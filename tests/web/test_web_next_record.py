"""The message page's "next record" link (issue 33): past a segment's BLANK end it names the next segment's first
message, and the log's last message has none (it 404ed at both)."""

from __future__ import annotations

import re

import pytest
from multi_segment_store import write_multi_segment_store

from inspector.engine import Message, Store
from web.app import create_app


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = write_multi_segment_store(tmp_path_factory.mktemp("multi") / "s")
    with Store(root) as s:
        yield s


def _next_link(html: str) -> int | None:
    found = re.search(r'href="/message/(\d+)">next record', html)
    return int(found.group(1)) if found else None


def test_next_record_crosses_segments_and_ends_with_the_log(store):
    client = create_app(store, {"TESTING": True}).test_client()
    messages = [m for m in store.entries() if isinstance(m, Message)]
    ends = {seg.start_offset + seg.file_size for seg in store.commitlog.segments}
    last_in_segment = [i for i, m in enumerate(messages[:-1]) if messages[i + 1].physical_offset in ends
                       or messages[i + 1].physical_offset != m.end_offset]
    assert last_in_segment, "the store has a segment whose BLANK end is followed by another segment"
    for i in [*last_in_segment, 0]:
        r = client.get(f"/message/{messages[i].physical_offset}")
        assert r.status_code == 200
        nxt = _next_link(r.get_data(as_text=True))
        assert nxt == messages[i + 1].physical_offset
        assert client.get(f"/message/{nxt}").status_code == 200
    r = client.get(f"/message/{messages[-1].physical_offset}")
    assert r.status_code == 200 and _next_link(r.get_data(as_text=True)) is None


def _prev_link(html: str) -> int | None:
    found = re.search(r'href="/message/(\d+)">◀ previous record', html)
    return int(found.group(1)) if found else None


def test_previous_record_walks_back_past_blanks_and_stops_at_the_first(store):
    """"◀ previous record" (as the hex page has): the message before in commitlog order, past a segment's BLANK
    end to the previous segment's last message; none on the log's first message."""
    client = create_app(store, {"TESTING": True}).test_client()
    messages = [m for m in store.entries() if isinstance(m, Message)]
    starts = {seg.start_offset for seg in store.commitlog.segments}
    firsts = [i for i, m in enumerate(messages) if i and m.physical_offset in starts]
    assert firsts, "the store has a segment after a BLANK end"
    for i in [*firsts, len(messages) - 1]:
        r = client.get(f"/message/{messages[i].physical_offset}")
        assert r.status_code == 200
        prev = _prev_link(r.get_data(as_text=True))
        assert prev == messages[i - 1].physical_offset
        assert client.get(f"/message/{prev}").status_code == 200
    r = client.get(f"/message/{messages[0].physical_offset}")
    assert r.status_code == 200 and _prev_link(r.get_data(as_text=True)) is None
