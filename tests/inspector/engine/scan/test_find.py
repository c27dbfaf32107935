"""grep -i's byte search: the compiled kernel and the Python path find the same first position as a plain
``bytes.lower().find`` over random text, whichever byte of the literal is its anchor."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.engine.scan.find import anchor_of, find_folded
from inspector.engine.scan.kernels import compiled, python_only

ALPHABET = b"aAbBzZqQ-_x0 "


def _arr(data: bytes) -> np.ndarray:
    arr = np.frombuffer(data, dtype=np.uint8)
    arr.flags.writeable = False
    return arr


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200).map(lambda b: bytes(ALPHABET[x % len(ALPHABET)] for x in b)),
       st.binary(min_size=1, max_size=5).map(lambda b: bytes(ALPHABET[x % len(ALPHABET)] for x in b).lower()),
       st.integers(0, 30), st.integers(0, 30))
def test_both_paths_find_what_lower_find_finds(text, literal, cut_start, cut_end):
    start, end = min(cut_start, len(text)), max(min(cut_start, len(text)), len(text) - cut_end)
    want = text[start:end].lower().find(literal)
    want = -1 if want < 0 else start + want
    with python_only():
        assert find_folded(_arr(text), literal, start, end) == want
    if compiled() is not None:
        assert find_folded(_arr(text), literal, start, end) == want


def test_the_anchor_is_the_rarest_byte():
    assert anchor_of(b"no-such-needle") == anchor_of(b"no-such-needle")  # deterministic
    assert b"no-such-needle"[anchor_of(b"no-such-needle")] in b"-"  # rarer than the letters n, o, s, u, c, h, e, d, l
    assert b"quiz"[anchor_of(b"quiz")] == ord("z")
