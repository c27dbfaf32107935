"""``info``'s segment table folds a long run of alike message-less files (a store with thousands of empty files named
as segments) into one row that counts them and points to --json; every other row is kept, in order."""

from inspector.cli.info import FOLD_RUN, _folded


def _seg(n: int, messages: int = 0, size: int = 0) -> dict:
    return {"name": f"{n:020d}", "messages": messages, "blank_position": None, "file_size": size}


def test_a_long_run_is_folded_and_counted():
    segs = [_seg(0, 5, 100), *(_seg(i) for i in range(1, 2001)), _seg(2001, 3, 100)]
    rows = _folded(segs)
    assert [r.get("name") for r in rows] == [segs[0]["name"], *(s["name"] for s in segs[1:4]), None,
                                              segs[1999]["name"], segs[2000]["name"], segs[2001]["name"]]
    assert rows[4]["folded"] == 2000 - 5


def test_short_runs_and_unlike_files_are_all_kept():
    segs = [_seg(i) for i in range(FOLD_RUN)] + [_seg(100, 1, 100)] + [_seg(200 + i, 0, 7 + i) for i in range(20)]
    assert _folded(segs) == segs
