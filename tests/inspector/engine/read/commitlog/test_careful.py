"""The careful step at the tail of a log a broker is still writing (read/careful.py)."""

from __future__ import annotations

from inspector.engine.maintain.write.encode import encode_record
from inspector.engine.model.records import Message, Problem, Segment
from inspector.engine.read.commitlog import careful
from inspector.engine.read.commitlog.careful import careful_step

SEGMENT = 4096


def _record(at: int) -> bytes:
    return encode_record(topic="LiveTopic", body=b"x" * 300, properties={"KEYS": "k1"}, physical_offset=at,
                         born_timestamp=1_700_000_000_000, born_host="10.0.0.9:40000",
                         store_timestamp=1_700_000_000_000, store_host="10.0.0.1:10911", queue_id=0)


def test_a_record_finished_between_two_reads_is_the_record_not_garbage(monkeypatch):
    """The header read as zeros, then the whole record there when the bytes after it are searched (CI met it)."""
    buf = bytearray(SEGMENT)
    record = _record(0)
    seg = Segment("00000000000000000000", "commitlog/00000000000000000000", 0, SEGMENT)
    real_first_nonzero = careful.first_nonzero

    def broker_writes_meanwhile(b, start, end):
        b[0 : len(record)] = record  # the broker copies the record in before this read
        return real_first_nonzero(b, start, end)

    monkeypatch.setattr(careful, "first_nonzero", broker_writes_meanwhile)
    found, nxt = careful_step(buf, 0, SEGMENT, seg, True, True, SEGMENT)
    assert [type(e) for e in found] == [Message], found
    assert nxt == len(record)


def test_a_damaged_tail_that_does_not_change_is_still_damage():
    buf = bytearray(SEGMENT)
    buf[100:104] = b"\x17\x17\x17\x17"  # garbage after the end of data, nobody writing
    seg = Segment("00000000000000000000", "commitlog/00000000000000000000", 0, SEGMENT)
    found, nxt = careful_step(buf, 0, SEGMENT, seg, True, True, SEGMENT)
    assert nxt is None
    assert [(p.code, p.offset) for p in found if isinstance(p, Problem)] == [("garbage-after-end", 0)]
