"""verify: a clean store is clean; each corruption gives its exact finding (file, offset, code) and no command crashes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from external_tools import NUMBA, need

from inspector.cli.main import main
from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify


def _verify(root: Path):
    with Store(root) as store:
        return verify(store)


def _findings(report) -> set[tuple[str, int, str]]:
    return {(p.file, p.offset, p.code) for p in report.errors}


def _segment_of(root: Path, offset: int) -> tuple[Path, int]:
    segs = sorted((root / "commitlog").iterdir())
    seg = [s for s in segs if int(s.name) <= offset][-1]
    return seg, offset - int(seg.name)


def _patch(path: Path, pos: int, data: bytes) -> None:
    raw = bytearray(path.read_bytes())
    raw[pos : pos + len(data)] = data
    path.write_bytes(bytes(raw))


def _every_command_completes(root: Path, capsys) -> None:
    """Each read command returns an exit code (never raises), whatever the damage."""
    key = ["OrderEvents", "order-1000"]
    for argv in (["info"], ["info", "--json"], ["messages", "--limit", "500"], ["messages", "--json", "--limit", "500"],
                 ["messages", "--topic", "OrderEvents", "--queue", "0"], ["show", "0"], ["key", *key],
                 ["chain", *key], ["chain", *key, "--json"], ["hex", "0", "--length", "4096"], ["verify"],
                 ["verify", "--json"]):
        code = main([argv[0], str(root), *argv[1:]])
        assert code in (0, 1, 3, 4), argv
    out = root.parent / "rebuilt"
    assert main(["rebuild", str(root), "--out", str(out), "--json"]) == 0
    capsys.readouterr()


def test_a_store_our_writer_wrote_verifies_clean(pristine_store):
    root, _ = pristine_store
    report = _verify(root)
    assert report.problems == ()
    assert (report.messages, report.cq_units) == (44, 44)
    assert report.index_items > 100


def test_torn_tail(store_copy, capsys):
    root, facts = store_copy
    seg, pos = _segment_of(root, facts["last"])
    _patch(seg, pos + 60, bytes(40))
    report = _verify(root)
    # 40 zero bytes inside the born host .. body length fields: the lengths no longer add up to TOTALSIZE
    torn = [p for p in report.errors if (p.file, p.offset) == (f"commitlog/{seg.name}", pos)]
    assert [p.code for p in torn] in (["length-mismatch"], ["bad-body-length"]), report.problems
    assert "torn tail" in torn[0].reason
    _every_command_completes(root, capsys)


def test_flipped_body_crc_byte(store_copy, capsys):
    root, facts = store_copy
    target = facts["offsets"][7]
    seg, pos = _segment_of(root, target)
    _patch(seg, pos + 8, bytes([seg.read_bytes()[pos + 8] ^ 0x01]))  # the BODYCRC field itself
    report = _verify(root)
    assert (f"commitlog/{seg.name}", pos, "crc-mismatch") in _findings(report)
    with Store(root) as s:
        assert s.message_at(target).body_crc_ok is False  # the message itself is still readable
    _every_command_completes(root, capsys)


def test_deleted_middle_segment(store_copy, capsys):
    root, _ = store_copy
    middle = sorted((root / "commitlog").iterdir())[1]
    middle.unlink()
    report = _verify(root)
    last = sorted((root / "commitlog").iterdir())[-1]
    assert (f"commitlog/{last.name}", 0, "missing-segment") in _findings(report)
    dangling = [p for p in report.errors if p.code in ("cq-dangling", "cq-past-end")]
    assert dangling and all(p.file.startswith("consumequeue/") for p in dangling)
    _every_command_completes(root, capsys)


def test_truncated_index_file(store_copy, capsys):
    root, _ = store_copy
    first = sorted((root / "index").iterdir())[0]
    first.write_bytes(first.read_bytes()[:40 + 16 * 4 + 10 * 20])  # keeps the header, slots and 9 items
    report = _verify(root)
    codes = {(p.file, p.code) for p in report.errors}
    assert (f"index/{first.name}", "index-size") in codes
    assert (f"index/{first.name}", "index-truncated") in codes
    _every_command_completes(root, capsys)


def test_consume_queue_unit_pointing_past_the_end(store_copy, capsys):
    root, _ = store_copy
    cq = root / "consumequeue" / "OrderEvents" / "1" / "00000000000000000000"
    _patch(cq, 20, (10_000_000).to_bytes(8, "big"))  # unit 1
    report = _verify(root)
    assert ("consumequeue/OrderEvents/1/00000000000000000000", 20, "cq-past-end") in _findings(report)
    _every_command_completes(root, capsys)


def test_looping_chain(store_copy, capsys):
    root, _ = store_copy
    with Store(root) as s:
        reader = s.index_files()[0]
        slot = next(n for n in range(reader.slot_count) if (reader.slot_value(n) or 0) > 3)
        head = reader.slot_value(slot)
        name, slots = reader.name, reader.slot_count
    # make the head's oldest link point back to the head: walk to the chain's end and link it to the head
    with Store(root) as s:
        reader = s.index_files()[0]
        number = head
        while reader.item(number).prev_index:
            number = reader.item(number).prev_index
    item_pos = 40 + slots * 4 + number * 20
    _patch(root / "index" / name, item_pos + 16, head.to_bytes(4, "big"))
    report = _verify(root)
    assert (f"index/{name}", 40 + slot * 4, "index-loop") in _findings(report)
    with Store(root) as s:
        for walk in s.chain("OrderEvents", "order-1000"):
            assert len(walk.steps) <= 64  # bounded
    _every_command_completes(root, capsys)


@pytest.mark.parametrize("json_flag", [False, True])
def test_verify_exit_code_and_json(store_copy, capsys, json_flag):
    root, facts = store_copy
    assert main(["verify", str(root)] + (["--json"] if json_flag else [])) == 0
    capsys.readouterr()
    seg, pos = _segment_of(root, facts["offsets"][3])
    _patch(seg, pos + 8, b"\x7f\x7f\x7f\x7f")
    assert main(["verify", str(root)] + (["--json"] if json_flag else [])) == 4
    out = capsys.readouterr().out
    if json_flag:
        doc = json.loads(out)
        assert doc["ok"] is False
        assert {"file": f"commitlog/{seg.name}", "offset": pos, "code": "crc-mismatch"}.items() <= doc["problems"][0].items()
    else:
        assert "crc-mismatch" in out


CHECKPOINT_FIELDS = {"physic": 0, "logics": 8, "index": 16}


@pytest.mark.parametrize(("field", "value", "code"), [
    ("physic", -1, "checkpoint-time"), ("logics", -(1 << 63), "checkpoint-time"), ("index", -5, "checkpoint-time"),
    ("index", 4_000_000_000_001, "checkpoint-ahead"), ("index", (1 << 63) - 1, "checkpoint-ahead"),
])
def test_a_checkpoint_time_no_broker_wrote_is_named_at_its_field(store_copy, field, value, code):
    root, _ = store_copy
    at = CHECKPOINT_FIELDS[field]
    _patch(root / "checkpoint", at, value.to_bytes(8, "big", signed=True))
    assert _findings(_verify(root)) == {("checkpoint", at, code)}


def test_checkpoint_times_without_records_are_held_against_the_clock(tmp_path, realdata):
    """Real brokers' checkpoints (no commitlog beside them) are clean; a time past now + a day is not."""
    from inspector.engine.maintain.verify.verify import CHECKPOINT_FUTURE_SLACK_MS, check_checkpoint

    files = sorted(realdata.glob("*/*/store/checkpoint"))
    assert files
    for i, path in enumerate(files):
        (tmp_path / str(i)).mkdir()
        (tmp_path / str(i) / "checkpoint").write_bytes(path.read_bytes())
        with Store(tmp_path / str(i)) as s:
            assert check_checkpoint(s, 0) == [], path
    now = 1_764_000_000_000
    root = tmp_path / "0"
    _patch(root / "checkpoint", 16, (now + CHECKPOINT_FUTURE_SLACK_MS + 1).to_bytes(8, "big"))
    with Store(root) as s:
        assert [(p.offset, p.code) for p in check_checkpoint(s, 0, now)] == [(16, "checkpoint-time")]
        assert check_checkpoint(s, 0, now + 2) == []  # within the day's slack


@pytest.mark.parametrize("at", [0, 8, 16, 24])  # begin/end timestamp, begin/end phy offset
def test_an_index_header_range_not_the_items_is_named_at_its_field(store_copy, capsys, at):
    root, _ = store_copy
    name = sorted((root / "index").iterdir())[0].name
    path = root / "index" / name
    value = int.from_bytes(path.read_bytes()[at : at + 8], "big", signed=True)
    _patch(path, at, (value + 1).to_bytes(8, "big", signed=True))
    assert _findings(_verify(root)) == {(f"index/{name}", at, "index-header")}
    _every_command_completes(root, capsys)


@pytest.mark.parametrize("threads", [False, True])
def test_compressed_bodies_stay_in_the_fast_walk_and_a_bad_one_is_still_reported(tmp_path, monkeypatch, threads):
    """verify decompresses the compressed bodies of its clean runs where it walks them (one careful step only
    for the end of the log, not one per compressed record), by one thread or by several; a body that does not
    decompress still ends the run there and gets the same report as the record-by-record walk."""
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.crc import rocketmq_crc32
    from inspector.engine.model.geometry import Geometry
    from inspector.engine.read.commitlog import commitlog, segment_summary

    need(NUMBA)  # the fast walk is the compiled kernels
    root = tmp_path / "s"
    with StoreWriter(root, Geometry(segment_size=1 << 20, cq_file_size=6000, index_slots=1000, index_items=4000)) as w:
        for i in range(300):
            w.append(MessageSpec(topic="T", queue_id=i % 2, keys=[f"k{i}"], body=random.Random(i).randbytes(400 + i),
                                 compression=("zlib", None, "zstd")[i % 3], store_timestamp=1_700_000_000_000 + i))
    if threads:  # walk the small segment as a large one: by threads, in pieces
        monkeypatch.setattr(commitlog.CommitLog, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(commitlog.CommitLog, "PARALLEL_CHUNK", 16 << 10)
        monkeypatch.setattr("inspector.engine.maintain.verify.verify.default_workers", lambda: 2)
        threaded = segment_summary.threaded_runs
        monkeypatch.setattr(segment_summary, "threaded_runs",
                            lambda *a: steps.append("threads") or (yield from threaded(*a)))
    steps = []
    careful = commitlog.careful_step
    monkeypatch.setattr(commitlog, "careful_step", lambda *a, **k: steps.append(a[1]) or careful(*a, **k))
    report = _verify(root)
    assert report.messages == 300 and not report.problems
    assert len(steps) == 1 + threads  # the zero tail of the log (and the threads' walk)
    # garble the middle of a ZLIB body, its BODYCRC recomputed: only decompression can tell
    with Store(root) as store:
        msg = [m for m in store.entries() if m.compression == "ZLIB"][40]
    seg, pos = _segment_of(root, msg.physical_offset)
    body_at = seg.read_bytes().index(msg.body, pos)
    garbled = bytearray(msg.body)
    garbled[len(garbled) // 2 : len(garbled) // 2 + 8] = b"\xff" * 8
    _patch(seg, body_at, bytes(garbled))
    _patch(seg, pos + 8, rocketmq_crc32(bytes(garbled)).to_bytes(4, "big"))
    steps.clear()
    report = _verify(root)
    with Store(root) as store:
        slow = verify(store, fast=False)
    assert [(p.file, p.offset, p.code, p.reason) for p in report.problems] == \
        [(p.file, p.offset, p.code, p.reason) for p in slow.problems]
    assert (msg.file, msg.position, "body-undecompressable") in {(p.file, p.offset, p.code) for p in report.problems}
    assert report.messages == slow.messages == 300
    assert msg.position in steps


def test_an_index_full_of_items_no_record_vouches_for_is_counted_past_the_first_ones(store_copy, monkeypatch):
    """An index file from another store (every item's key hash wrong) is not looked at item by item in Python
    past verify_index.RECHECKED items a file: those are named, the rest counted in one finding at the first."""
    from inspector.engine.maintain.verify import index as verify_index

    root, _ = store_copy
    first = sorted((root / "index").iterdir())[0]
    with Store(root) as store:
        reader = store.index_files()[0]
        base, written = 40 + reader.slot_count * 4, reader.written_items
    data = bytearray(first.read_bytes())
    for i in range(1, written + 1):  # every written item: its key hash flipped (no key of its record has it)
        at = base + i * 20
        data[at : at + 4] = (int.from_bytes(data[at : at + 4], "big") ^ 0x5A5A5A5A).to_bytes(4, "big")
    first.write_bytes(bytes(data))
    rel = f"index/{first.name}"
    whole = [p for p in _verify(root).errors if p.file == rel and p.code == "index-key-mismatch"]
    monkeypatch.setattr(verify_index, "RECHECKED", 7)
    report = _verify(root)
    named = [p for p in report.errors if p.file == rel and p.code == "index-key-mismatch"]
    counted = [p for p in report.errors if p.file == rel and p.code == "index-unvouched"]
    if len(whole) <= 7:
        pytest.skip("the fast cross-check did not run on this store")
    assert len(named) == 7 and named == whole[:7]
    assert len(counted) == 1 and f"{len(whole) - 7} more item(s), from item " in counted[0].reason
    assert counted[0].offset == whole[7].offset
