"""RecordSpec (issue 32 item 4): which lines are stored records, what is written from them, and the derived
fields checked against the record they make (the CLI round trips are in tests/inspector/cli/
test_write_roundtrip_cli.py)."""

from __future__ import annotations

import base64

import pytest

from inspector.engine import BadInput, rocketmq_crc32
from inspector.engine.maintain.write.recordspec import RecordSpec

BODY = b"hello"
LINE = {"topic": "T", "queue_id": 1, "sys_flag": 0, "flag": 3, "born_timestamp": 5, "born_host": "10.0.0.1:1",
        "store_timestamp": 6, "store_host": "10.0.0.2:10911", "properties": {"KEYS": "a b", "TAGS": "t", "X": "1"},
        "body_base64": base64.b64encode(BODY).decode(), "body_crc": rocketmq_crc32(BODY)}


def test_a_message_line_is_no_record():
    assert RecordSpec.from_json({"topic": "T", "body": "x"}) is None


def test_written_as_given():
    rec = RecordSpec.from_json({**LINE, "msg_id": "ignored without --keep-offsets", "file": "x", "position": 9})
    p = rec.prepared
    assert (p.topic, p.queue_id, p.flag, p.body, p.born_host, p.store_host) == (
        "T", 1, 3, BODY, ("10.0.0.1", 1), ("10.0.0.2", 10911))
    assert p.properties.to_text() == "KEYS\x01a b\x02TAGS\x01t\x02X\x011\x02"  # the order given, nothing added
    assert rec.expected_offsets() is None


def test_a_bad_crc_is_kept_and_must_be_claimed_as_bad():
    rec = RecordSpec.from_json({**LINE, "body_crc": 7, "body_crc_ok": False})
    assert rec.prepared.body_crc == 7
    with pytest.raises(BadInput, match="field body_crc_ok is True"):
        RecordSpec.from_json({**LINE, "body_crc": 7, "body_crc_ok": True})


@pytest.mark.parametrize(("claim", "words"), [
    ({"keys": ["a"]}, "field keys"), ({"unique_key": "U"}, "field unique_key"), ({"compression": "ZLIB"},
                                                                                   "field compression"),
    ({"magic_version": 2}, "field magic_version"), ({"sys_flag": 16}, "born-host IPv6 bit but the born host is IPv4"),
    ({"born_host": "[::1]:1"}, "field sys_flag is 0, but its hosts make it 16"),
])
def test_derived_fields_checked(claim, words):
    with pytest.raises(BadInput, match=words):
        RecordSpec.from_json({**LINE, **claim})


def test_keep_offsets_needs_the_stored_offset_to_be_the_offset():
    rec = RecordSpec.from_json({**LINE, "physical_offset": 100, "queue_offset": 2, "stored_physical_offset": 100})
    assert rec.expected_offsets() == (100, 2)
    rec = RecordSpec.from_json({**LINE, "physical_offset": 100, "queue_offset": 2, "stored_physical_offset": 99})
    with pytest.raises(BadInput, match="stored_physical_offset 99 is not physical_offset 100"):
        rec.expected_offsets()
