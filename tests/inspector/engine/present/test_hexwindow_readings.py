"""The bytes at a cursor as numbers (the web hex page's data inspector): big-endian, signed and unsigned, cut at
the data's end, and the int64 as a time only when a broker could have written it."""

from __future__ import annotations

from inspector.engine import byte_readings
from inspector.engine.present.hexwindow import PLAUSIBLE_MS, TIME_ROW, plausible_time


def values(data: bytes, index: int = 0) -> dict:
    return {r["type"]: r["value"] for r in byte_readings(data, index)}


def test_big_endian_signed_and_unsigned():
    rows = {r["type"]: r for r in byte_readings(bytes.fromhex("fffe0001 00000000"), 0)}
    assert rows["int8"]["value"] == -1 and rows["int8"]["unsigned"] == 255
    assert rows["int16"]["value"] == -2 and rows["int16"]["unsigned"] == 0xFFFE
    assert rows["int32"]["value"] == -131071 and rows["int32"]["hex"] == "0xfffe0001"
    assert rows["int64"]["unsigned"] == 0xFFFE000100000000


def test_cut_at_the_end_and_before_the_start():
    assert values(b"\x01\x02\x03", 1) == {"int8": 2, "int16": 0x0203, "int32": None, "int64": None, TIME_ROW: None}
    assert values(b"\x01", -1) == {"int8": None, "int16": None, "int32": None, "int64": None, TIME_ROW: None}


def test_time_only_when_plausible():
    born = 1_758_272_401_105  # the sample store's second record's BORNTIMESTAMP
    assert values(born.to_bytes(8, "big"))[TIME_ROW] == "2025-09-19T09:00:01.105+00:00"
    assert plausible_time(PLAUSIBLE_MS[0]) == "2000-01-01T00:00:00.000+00:00"
    assert plausible_time(PLAUSIBLE_MS[0] - 1) is None and plausible_time(PLAUSIBLE_MS[1]) is None
    assert plausible_time(None) is None and values(b"\0" * 8)[TIME_ROW] is None
