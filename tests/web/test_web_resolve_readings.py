"""The msgId resolver's two readings (issue 33): an offset-msgId reading no broker could make (port over 65535,
negative offset) says so, and a message the id finds dates the UNIQ_KEY reading by its own born time, whichever
reading found it (it said "guessed from today")."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

from inspector.engine import Message


def _text(r) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r.get_data(as_text=True))))


def _first_keyed(sample_messages) -> Message:
    return next(m for m in sample_messages if m.unique_key and m.msg_id)


def test_a_uniq_key_read_as_an_offset_msgid_is_not_a_valid_one(client, sample_messages):
    m = _first_keyed(sample_messages)
    text = _text(client.get(f"/resolve?id={m.unique_key}"))
    assert "not a valid offset msgId: port" in text and "is over 65535" in text


def test_a_negative_offset_is_not_a_valid_offset_msgid(client):
    text = _text(client.get("/resolve?id=0A140005" + "00002A9F" + "F" * 16))
    assert "not a valid offset msgId: physical offset -1 is negative" in text


def test_a_negative_port_is_not_a_port(client):
    """An id with FFFFFFFF in the port place reads as port -1: said as no port at all (it said "over 65535")."""
    text = _text(client.get("/resolve?id=0A140005" + "F" * 8 + "0" * 16))
    assert "not a valid offset msgId: port -1 is not a port (0..65535)" in text
    assert "over 65535" not in text


def test_a_found_message_dates_the_id_by_its_born_time(client, sample_messages):
    m = _first_keyed(sample_messages)
    born_month = dt.datetime.fromtimestamp(m.born_timestamp / 1000).astimezone().strftime("%Y-%m")
    for ref in (m.unique_key, m.msg_id):
        text = _text(client.get(f"/resolve?id={ref}"))
        assert "guessed from today" not in text, ref
        assert "month of the message's born time" in text, ref
        assert f"≈ {born_month}" in text, ref
