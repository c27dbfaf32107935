"""``id_overview`` and ``unique_key_time`` (issue 27): the reading that finds a message is the id's ``kind``, and a
UNIQ_KEY found in the store is dated by its message's born time, the one answer the CLI, web and TUI give."""

from __future__ import annotations

from pathlib import Path

from inspector.engine import Store, id_overview, resolve_message_id, unique_key_time
from inspector.engine.read.store.store import decode_id

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"
FIRST_KEY = "0A14010B47372A139A555EA0DB42002D"  # the UNIQ_KEY of the record at 0, born 2025-09-19 09:00:00.194 UTC
FIRST_MSG_ID = "0A14000500002A9F0000000000000000"  # the offset msgId of the same record


def test_a_found_unique_key_is_the_kind_and_dated_by_its_message() -> None:
    with Store(SAMPLE) as store:
        born = store.message_at(0).born_timestamp
        data = id_overview(FIRST_KEY, store)
        readings = decode_id(FIRST_KEY, store)
        assert unique_key_time(readings[1], store) == (born, "month of the message's born time")
    assert (data["kind"], data["found_as"], data["physical_offset"]) == ("unique_key", ["unique_key"], 0)
    assert data["approximate_timestamp"] == data["unique_key"]["approximate_timestamp"] == born == 1758272400194
    assert {"port", "offset"}.isdisjoint(data) and data["offset_msg_id"]["found"] is False


def test_an_offset_msg_id_and_an_id_without_a_store_keep_the_offset_reading_on_top() -> None:
    with Store(SAMPLE) as store:
        found = id_overview(FIRST_MSG_ID, store)
    assert (found["kind"], found["port"], found["offset"], found["found_as"]) == ("offset_msg_id", 10911, 0,
                                                                                  ["offset_msg_id"])
    alone = id_overview(FIRST_KEY)
    assert alone["kind"] == "offset_msg_id" and "found_as" not in alone  # nothing found: both readings stay guesses
    _, why = unique_key_time(decode_id(FIRST_KEY)[1])
    assert why == "month guessed from today's date"


def test_one_resolution_for_every_view_the_born_time_when_found() -> None:
    """resolve_message_id is what the TUI's msgId screen and id_overview (the CLI's decode-id, the web) both ask."""
    with Store(SAMPLE) as store:
        readings, approximate, how = resolve_message_id(FIRST_KEY, store)
        assert [r.found for r in readings] == [False, True]
        assert (approximate, how) == (store.message_at(0).born_timestamp, "month of the message's born time")
        assert id_overview(FIRST_KEY, store)["approximate_timestamp"] == approximate
    readings, _, how = resolve_message_id(FIRST_KEY)
    assert [r.found for r in readings] == [None, None] and how == "month guessed from today's date"  # unchecked
