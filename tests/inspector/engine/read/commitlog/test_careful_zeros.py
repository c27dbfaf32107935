"""The zero runs a damage finding names (careful.zeros_in): followed back into the record they begin in, never
read past ZEROS_AHEAD of the span (said when cut), short runs (a long's high bytes) not named."""

from __future__ import annotations

from inspector.engine.read.commitlog.careful import ZEROS_AHEAD, zeros_in


def test_a_zeroed_page_is_named_from_its_first_byte():
    buf = bytearray(b"\x01" * 20_000)
    buf[4096:8192] = bytes(4096)
    buf[9000:9010] = bytes(10)  # too short to name
    assert zeros_in(bytes(buf), 4621, 9500) == " (zeros at 4096..8192: 4096 zero bytes)"
    assert zeros_in(bytes(buf), 8200, 9500) == ""


def test_a_long_span_is_looked_at_only_so_far_and_says_so():
    buf = bytes(ZEROS_AHEAD * 3)
    assert zeros_in(buf, 100, len(buf)) == f" (zeros at 0..{100 + ZEROS_AHEAD}: {100 + ZEROS_AHEAD} zero bytes, in " \
                                           f"its first {ZEROS_AHEAD >> 20} MiB)"
