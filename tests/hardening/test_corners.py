"""Issue 35: corners of the newer kinds, damage called clean, findings capped without a word.

Each case: no traceback, the documented exit code, the finding naming file and offset, the store unchanged byte
for byte. The same cases are replayed by the structure fuzzer (``NEW_REGRESSIONS``, kind ``file``)."""

from __future__ import annotations

import json
import shutil
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from store_mutations import _sparse_copy
from test_read_only import snapshot

from inspector.cli.main import main
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.timer.timerstore import SLOT_DTYPE
from parsers.timer import TIMER_WHEEL_SLOTS
from tests.batch_store import write_batch_store
from tests.lmq_store import write_lmq_store

REPO = Path(__file__).resolve().parents[2]
T = 1_700_000_000_500
LOG = "timerlog/00000000000000000000"
BCQ = "batchconsumequeue/Direct5BatchCQ/0/00000000000000000000"
SEG = "commitlog/00000000000000000000"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, argv
    return code, out, err


def _findings(capsys, root: Path, command: str = "verify") -> tuple[int, set[tuple[str, int, str, str]]]:
    code, out, _ = _run(capsys, command, str(root), "--json")
    return code, {(p["file"], p["offset"], p["code"], p["severity"]) for p in json.loads(out)["problems"]}


@pytest.fixture(scope="module")
def timer_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corner-timer") / "store"
    small = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    with StoreWriter(root, small, timer_file_size=52 * 20 + 16) as w:
        w.append(MessageSpec("Orders", b"due", keys=["a"], deliver_ms=T + 3000, store_timestamp=T))
        w.append(MessageSpec("Orders", b"pending", keys=["b"], deliver_ms=T + 60_000, store_timestamp=T + 10))
    return root


def _copy(source: Path, tmp_path: Path, damage: Callable[[Path], None]) -> tuple[Path, dict]:
    root = tmp_path / "store"
    # extent by extent: the writer's stores hold sparse 1 GiB segments and index files, which a plain copytree
    # writes out in full (seconds a test, and a different store: a zero tail instead of a hole)
    shutil.copytree(source, root, copy_function=_sparse_copy)
    damage(root)
    return root, snapshot(root)


# -- arithmetic on store values --------------------------------------------------------------------------------


def test_an_empty_timer_log_file_divides_nothing(timer_store, tmp_path, capsys) -> None:
    root, before = _copy(timer_store, tmp_path, lambda r: (r / LOG).write_bytes(b""))
    code, found = _findings(capsys, root)
    assert code == 4  # timercheck's flush position is past the (now empty) log: an error
    assert (LOG, 0, "timerlog-size", "warning") in found
    for argv in (["info", str(root)], ["timer", str(root)], ["timer", str(root), "--json"],
                 ["timer", str(root), "--wheel"], ["timer", str(root), "--summary", "--json"]):
        code, _, err = _run(capsys, *argv)
        assert code == 0, argv
    from web.app import create_app

    client = create_app(root, {"TESTING": True}).test_client()
    for url in ("/", "/timer", "/api/timer"):
        assert client.get(url).status_code == 200, url
    assert snapshot(root) == before


@pytest.mark.parametrize("unit", [0, 2])
def test_a_batch_unit_at_the_last_long_is_a_bad_unit(unit, tmp_path, capsys) -> None:
    source = tmp_path / "source"
    write_batch_store(source)

    def damage(root: Path) -> None:
        with open(root / BCQ, "r+b") as f:
            f.seek(unit * 46 + 28)  # msgBaseOffset: after phyOffset (8), size (4), tagsCode (8), storeTime (8)
            f.write(struct.pack(">q", (1 << 63) - 1))

    root, before = _copy(source, tmp_path, damage)
    code, found = _findings(capsys, root)
    assert code == 4 and (BCQ, unit * 46, "bcq-bad-unit", "error") in found
    reason = next(p["reason"] for p in json.loads(_run(capsys, "verify", str(root), "--json")[1])["problems"]
                  if p["code"] == "bcq-bad-unit")
    assert "past the largest Java long" in reason
    assert _run(capsys, "messages", str(root), "--topic", "Direct5BatchCQ", "--queue", "0")[0] == 0
    assert snapshot(root) == before


def test_a_dledger_data_file_renamed_off_its_offset(tmp_path, capsys) -> None:
    data = "dledger-n0/data/"
    root, before = _copy(REPO / "sample_store_dledger", tmp_path,
                         lambda r: (r / (data + "00000000000000131072")).rename(r / (data + "00000000000000131000")))
    code, found = _findings(capsys, root)
    assert code == 4 and (data + "00000000000000131000", 0, "misaligned-segment", "error") in found
    assert not any(code == "missing-segment" for _, _, code, _ in found)  # the gap it leaves is said once
    assert _run(capsys, "info", str(root))[0] == 0
    assert snapshot(root) == before


# -- the broker's load checks ----------------------------------------------------------------------------------


def test_a_queue_file_of_the_wrong_length_is_what_the_broker_refuses(tmp_path, capsys) -> None:
    rel = "consumequeue/InventoryEvents/0/00000000000000000000"

    def cut(root: Path) -> None:
        with open(root / rel, "r+b") as f:
            f.truncate(16007)  # truncate -s 16007 on an 800-byte file

    root, before = _copy(REPO / "sample_store", tmp_path, cut)
    code, found = _findings(capsys, root)
    assert code == 4 and (rel, 0, "wrong-cq-file-size", "error") in found
    census_code, census_found = _findings(capsys, root, "census")
    assert census_code == 4 and (rel, 0, "wrong-cq-file-size", "error") in census_found
    assert snapshot(root) == before


def test_a_plain_topic_marked_batch_is_what_the_broker_refuses(tmp_path, capsys) -> None:
    source = tmp_path / "source"
    write_batch_store(source)

    def mark(root: Path) -> None:
        path = root / "config" / "topics.json"
        doc = json.loads(path.read_text())
        doc["topicConfigTable"]["Plain"]["attributes"] = {"queue.type": "BatchCQ"}
        path.write_text(json.dumps(doc))

    root, before = _copy(source, tmp_path, mark)
    finding = ("consumequeue/Plain", 0, "queue-type-mismatch", "error")
    code, found = _findings(capsys, root)
    assert code == 4 and finding in found
    census_code, census_found = _findings(capsys, root, "census")
    assert census_code == 4 and finding in census_found
    assert snapshot(root) == before


@pytest.mark.parametrize("damage", ["deleted", "last-unit-zeroed"])
def test_lmq_queues_are_held_to_the_records_like_ordinary_ones(damage, tmp_path, capsys) -> None:
    source = write_lmq_store(tmp_path / "source")
    queue = "consumequeue/%LMQ%y"

    def harm(root: Path) -> None:
        if damage == "deleted":
            shutil.rmtree(root / queue)
        else:
            with open(root / queue / "0" / "00000000000000000000", "r+b") as f:
                f.write(bytes(20))  # its one unit

    root, before = _copy(source, tmp_path, harm)
    code, out, _ = _run(capsys, "verify", str(root), "--json")
    hits = [p for p in json.loads(out)["problems"] if "%LMQ%y" in p["reason"]]
    assert code == 4 and len(hits) == 1
    assert hits[0]["file"] == SEG and hits[0]["severity"] == "error"
    assert hits[0]["code"] == ("cq-missing" if damage == "deleted" else "cq-behind")
    assert "INNER_MULTI_QUEUE_OFFSET 0..0" in hits[0]["reason"]
    assert snapshot(root) == before


# -- no silent caps ----------------------------------------------------------------------------------------------


def test_a_wheel_of_misplaced_slots_lists_a_thousand_and_counts_the_rest(timer_store, tmp_path, capsys) -> None:
    def misplace(root: Path) -> None:
        slots = np.zeros(TIMER_WHEEL_SLOTS, dtype=SLOT_DTYPE)
        slots["time"] = np.arange(TIMER_WHEEL_SLOTS) + 1  # every slot holds its neighbour's time
        slots["first_pos"] = slots["last_pos"] = -1
        slots.tofile(root / "timerwheel")

    root, before = _copy(timer_store, tmp_path, misplace)
    code, out, _ = _run(capsys, "verify", str(root), "--json")
    problems = json.loads(out)["problems"]
    listed = [p for p in problems if p["code"] == "timer-slot-misplaced"]
    more = [p for p in problems if p["code"] == "timer-slot-misplaced-more"]
    assert code == 0 and len(listed) == 1000 and len(more) == 1
    assert more[0]["offset"] == 1000 * 32 and f"{TIMER_WHEEL_SLOTS - 1000:,} more" in more[0]["reason"]
    code, _, _ = _run(capsys, "verify", str(root))
    assert code == 0
    assert snapshot(root) == before
