"""Stores whose files are larger or more numerous than their data (issue 35): a copy with the preallocated tails
written out as zeros, segments sparse-extended to a TiB, thousands of empty files named as segments. Each gives
the findings of its small or sparse twin, an exit code, and the store unchanged."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

SEGMENT = 1 << 20  # a zero tail of about 1 MiB: larger than one numpy chunk of the scans' small cases
GEOMETRY = Geometry(segment_size=SEGMENT, cq_file_size=6000, index_slots=1000, index_items=4000)


def _write(root: Path, messages: int, geometry: Geometry = GEOMETRY) -> None:
    with StoreWriter(root, geometry) as w:
        for i in range(messages):
            w.append(MessageSpec(topic="T", queue_id=i % 2, keys=[f"k{i}"], body=b"x" * 200,
                                 store_timestamp=1_700_000_000_000 + i))


def _written_out(src: Path, dst: Path) -> None:
    """``cp --sparse=never``: every file byte for byte, holes written as zeros."""
    for path in sorted(src.rglob("*")):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


def _digest(root: Path) -> dict[str, tuple]:
    """Each file's size, modification time, allocated blocks and a hash of its first MiB (files of a TiB are not
    read whole)."""
    found = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            st = p.stat()
            with open(p, "rb") as f:
                head = hashlib.sha256(f.read(1 << 20)).hexdigest()
            found[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns, st.st_blocks, head)
    return found


def _report(root: Path) -> tuple:
    with Store(root) as store:
        r = verify(store)
    return r.messages, r.cq_units, r.index_items, [(p.file, p.offset, p.code, p.severity) for p in r.problems]


def _json(argv: list[str], capsys) -> tuple[int, dict]:
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("garbage", [False, True])
def test_a_copy_with_its_zero_tails_written_out_answers_as_the_sparse_store(tmp_path, capsys, garbage):
    sparse, copy = tmp_path / "sparse", tmp_path / "copy"
    _write(sparse, 1)
    segment = next((sparse / "commitlog").iterdir())
    if garbage:  # a byte far in the tail: both must find it
        with open(segment, "r+b") as f:
            f.seek(SEGMENT - 5000)
            f.write(b"\x17")
    _written_out(sparse, copy)
    copied = copy / "commitlog" / segment.name
    assert copied.stat().st_blocks * 512 >= SEGMENT  # every byte allocated: no hole left
    before = _digest(copy)
    assert _report(copy) == _report(sparse)
    for argv in (["info", "--json"], ["messages", "--limit", "1", "--json"], ["verify", "--json"],
                 ["hex", str(SEGMENT // 2), "--length", "64", "--json"]):
        answers = []
        for root in (sparse, copy):
            code = main([argv[0], str(root), *argv[1:]])
            answers.append((code, capsys.readouterr().out.replace(str(root), "STORE")))
        assert answers[0] == answers[1], argv
    assert _digest(copy) == before


def test_segments_sparse_extended_to_a_tib_are_named_and_walked_as_written(tmp_path, capsys):
    root = tmp_path / "giant"
    small = Geometry(segment_size=4096, cq_file_size=6000, index_slots=1000, index_items=4000)
    _write(root, 40, small)
    segments = sorted((root / "commitlog").iterdir())
    assert len(segments) > 2
    try:
        for seg in segments:
            os.truncate(seg, 1 << 40)
    except OSError as e:
        pytest.skip(f"this file system cannot hold a sparse 1 TiB file: {e}")
    before = _digest(root)
    messages, _, _, problems = _report(root)
    assert messages == 40
    assert [(f, o, c, s) for f, o, c, s in problems] == [
        (f"commitlog/{seg.name}", 0, "wrong-segment-size", "error") for seg in segments]
    with Store(root) as store:
        assert store.commitlog.segment_size == 4096
    code, view = _json(["verify", str(root), "--json"], capsys)
    assert code == 4
    assert {p["code"] for p in view["problems"]} == {"wrong-segment-size"}
    assert _digest(root) == before


def _empty_segments(root: Path, count: int) -> None:
    (root / "commitlog").mkdir(parents=True)
    for i in range(count):
        (root / "commitlog" / f"{i * 4096:020d}").touch()


def test_many_empty_files_named_as_segments_give_the_findings_of_a_few(tmp_path):
    few, many = tmp_path / "few", tmp_path / "many"
    _empty_segments(few, 3)
    _empty_segments(many, 600)

    def shape(root: Path) -> tuple[list, int]:
        _, _, _, problems = _report(root)
        per_file: dict[str, list] = {}
        for f, _, c, s in problems:
            per_file.setdefault(f, []).append((c, s))
        files = sorted(per_file)
        return [per_file[f] for f in (files[0], files[1], files[-1])], len(problems)

    (first_few, n_few), (first_many, n_many) = shape(few), shape(many)
    assert first_many == first_few
    assert n_many - n_few == 600 - 3  # one finding more for each file more


BIG = Geometry(segment_size=64 << 20, cq_file_size=6000, index_slots=1000, index_items=4000)  # a tail past TAIL_BUDGET


def _big_pair(tmp_path: Path, garbage: bool, zero_body: bool = False) -> tuple[Path, Path, Path]:
    """A 64 MiB segment holding a few messages (``zero_body``: the second one's body 200 KiB of zeros, an aligned
    zero window inside the data) as the broker leaves it (sparse) and copied with its zero tail written out."""
    sparse, copy = tmp_path / "sparse", tmp_path / "copy"
    with StoreWriter(sparse, BIG) as w:
        for i in range(3):
            body = bytes(200 << 10) if zero_body and i == 1 else b"x" * 200
            w.append(MessageSpec(topic="T", keys=[f"k{i}"], body=body, store_timestamp=1_700_000_000_000 + i))
    segment = next((sparse / "commitlog").iterdir())
    if garbage:  # a byte far past the budget in the tail
        with open(segment, "r+b") as f:
            f.seek((64 << 20) - 5000)
            f.write(b"\x17")
    _written_out(sparse, copy)
    return sparse, copy, copy / "commitlog" / segment.name


def _known_zeros_end(store, seg) -> int:
    """How far from the data the zero scans of the segment's mapping have read (the runs they remember)."""
    return max((b for _, b in store.commitlog.map(seg).buf.zero_runs.runs), default=0)


@pytest.mark.parametrize("garbage", [False, True], ids=["zeros", "garbage-far-in-the-tail"])
def test_info_and_hex_on_a_copy_do_not_read_its_long_zero_tail(tmp_path, capsys, garbage):
    """A copied 64 MiB segment holding three messages: info and hex read the zeros after the log's end only
    TAIL_BUDGET far (16 MiB), not to the segment's end, and info says so in one line (JSON: ``tail_not_checked``);
    the rest of its answer is the sparse original's. Garbage after them is verify's finding, on both."""
    from inspector.engine import store_overview
    from inspector.engine.present.layout import regions

    sparse, copy, copied = _big_pair(tmp_path, garbage)
    with Store(copy) as store:
        seg = store.commitlog.segments[0]
        overview = store_overview(store)
        assert _known_zeros_end(store, seg) <= 3 * (16 << 20)  # not the 64 MiB: the look stopped
    with Store(copy) as store:  # a fresh store: nothing remembered of the tail
        (zero,) = regions(store.commitlog, 50 << 20, (50 << 20) + 64)
        assert zero.kind == "zero" and "not checked here" in zero.label and zero.end == 64 << 20
        assert _known_zeros_end(store, store.commitlog.segments[0]) <= 3 * (16 << 20)
    assert overview["tail_not_checked"].startswith("bytes after the log's end: not checked by info")
    code, info_sparse = _json(["info", str(sparse), "--json"], capsys)
    assert "tail_not_checked" not in info_sparse  # its tail is a hole: all of it is looked at, for nothing
    code, info_copy = _json(["info", str(copy), "--json"], capsys)
    assert code == 0 and info_copy.pop("tail_not_checked")
    if garbage:  # the sparse store's info sees it (its one data page in the hole), the copy's leaves it to verify
        assert [p["code"] for p in info_sparse.pop("problems")] == ["garbage-after-end"]
        assert info_copy.pop("problems") == []
        for info in (info_sparse, info_copy):  # the segment's count of them, recovery's reason for its end
            info["segments"][0].pop("problems"), info["recovery"].pop("reason"), info["recovery"].pop("stop_problem")
        assert info_sparse["recovery"]["end_offset"] == info_copy["recovery"]["end_offset"] == 1095
    assert json.dumps(info_copy).replace(str(copy), "S") == json.dumps(info_sparse).replace(str(sparse), "S")
    assert main(["info", str(copy)]) == 0
    assert capsys.readouterr().out.count("bytes after the log's end: not checked by info") == 1
    assert _report(copy) == _report(sparse)
    assert [c for *_, c, _ in _report(copy)[3]] == (["garbage-after-end"] if garbage else [])


def test_a_zero_window_inside_the_data_of_a_copy_changes_no_answer(tmp_path, capsys):
    """The walk's bound, read from the data's side in a copy, stops at the first aligned zero window, here inside a
    record's body: the records after it are walked on (the bound looked for again past it), and every command
    answers as on the sparse original."""
    sparse, copy, _ = _big_pair(tmp_path, garbage=False, zero_body=True)
    assert _report(copy) == _report(sparse) and _report(copy)[0] == 3
    for argv in (["info", "--json"], ["messages", "--json"], ["verify", "--json"]):
        answers = []
        for root in (sparse, copy):
            code = main([argv[0], str(root), *argv[1:]])
            out = json.loads(capsys.readouterr().out) if argv[0] != "messages" else capsys.readouterr().out
            if isinstance(out, dict):
                out.pop("tail_not_checked", None)
            answers.append((code, json.dumps(out).replace(str(root), "STORE")))
        assert answers[0] == answers[1], argv
