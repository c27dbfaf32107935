"""The message list's row index (inspector/tui/rowindex.py): 64-bit offsets in 4 bytes a row, equal to a list."""

from __future__ import annotations

import random

import pytest

from inspector.tui.rowindex import RowOffsets


def test_it_reads_back_what_a_list_holds_through_extends_inserts_and_deletes() -> None:
    rows, ref = RowOffsets(), []
    rng = random.Random(1)
    cur = 0
    for _ in range(60):
        batch = []
        for _ in range(rng.randrange(0, 300)):
            cur += rng.choice((1, 500, 1 << 28, 1 << 31))  # past 4 GiB and 8 GiB: the high part changes
            batch.append(cur)
        if rng.random() < 0.1:
            batch = [rng.randrange(0, 1 << 40) for _ in range(20)]  # a list in another order is still right
        rows.extend(batch)
        ref.extend(batch)
        if ref and rng.random() < 0.5:  # a record's inner rows under it, then folded back
            i, n = rng.randrange(len(ref)), rng.randrange(1, 5)
            rows.insert_repeat(i + 1, ref[i], n)
            ref[i + 1 : i + 1] = [ref[i]] * n
            assert [rows[j] for j in range(len(ref))] == ref
            del rows[i + 1 : i + 1 + n]
            del ref[i + 1 : i + 1 + n]
        assert len(rows) == len(ref) and [rows[j] for j in range(len(ref))] == ref
    assert rows[-1] == ref[-1] and rows.low.itemsize == 4
    with pytest.raises(IndexError):
        rows[len(ref)]


def test_a_repeat_with_another_high_part_is_refused() -> None:
    rows = RowOffsets()
    rows.extend([5, (1 << 32) + 5])
    with pytest.raises(ValueError):
        rows.insert_repeat(1, 1 << 33, 2)
