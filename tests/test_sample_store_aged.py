"""The committed aged sample ``sample_store_aged/``: reproducible, and it answers as a store past its retention
should, with every count known from how it was made.

(a) Its files hash to a recorded SHA-256, and ``scripts/make_sample_store.py --aged`` regenerates them byte for
byte with the same generated README section. (b) The expectations come from the same day written *without* its
aging (``scripts/sample_store_aged.toml`` less its ``[aging]`` table): which segments the retention rule
(``MappedFileQueue.deleteExpiredFileByTime``: last write + fileReservedTime before now, never the last) removes,
which consume-queue and index files the cleanup removes, and how many units and items are left pointing below
the first offset. Those are checked against ``verify``, ``info``, ``preflight`` and the lookups, through the CLI.
"""

from __future__ import annotations

import json
import shlex
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from external_tools import import_or_skip

from inspector.cli.main import main
from inspector.engine import Message, Store, preflight
from parsers.indexfile import INDEX_HEADER_SIZE, IndexHeader
from tests.test_sample_store import _codecs_reproduce, _files, _generated, _store_digest

REPO = Path(__file__).resolve().parents[1]
AGED = REPO / "sample_store_aged"
SCRIPT = REPO / "scripts" / "make_sample_store.py"
SCENARIO = REPO / "scripts" / "sample_store_aged.toml"
# SHA-256 of every store file under sample_store_aged/ (tests/test_sample_store.py's _store_digest). Changing the
# scenario, the writer or its aging changes it on purpose: regenerate, check the README, record the new value.
STORE_SHA256 = "58f2b5490f56991a988be0b0e8f245812a1c50d57ebbd0f1be8f3713479b3b9d"
HOUR_MS = 3_600_000


def _cq_units(path: Path) -> list[int]:
    """Physical offsets of a consume-queue file's units (a zero-size unit ends them)."""
    data, out = path.read_bytes(), []
    for pos in range(0, len(data) - 19, 20):
        phy, size = struct.unpack_from(">qi", data, pos)
        if size == 0:
            break
        out.append(phy)
    return out


def _index_items(path: Path, slots: int) -> tuple[IndexHeader, list[int]]:
    """The header and the physical offset of every item written (items 1 .. indexCount - 1)."""
    data = path.read_bytes()
    header = IndexHeader.parse(data[:INDEX_HEADER_SIZE])
    start = INDEX_HEADER_SIZE + 4 * slots
    return header, [struct.unpack_from(">q", data, start + 20 * n + 4)[0] for n in range(1, header.index_count)]


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> dict:
    """What the aging must have done, worked out on the same day written without it."""
    scripts = str(REPO / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    from make_sample_store import write_store
    from sample_store_day import Scenario

    sc = Scenario(SCENARIO)
    aging = sc.data.pop("aging")
    root = tmp_path_factory.mktemp("day") / "store"
    write_store(root, sc)
    cutoff = int(aging["retention_now"].timestamp()) * 1000 - aging["file_reserved_hours"] * HOUR_MS
    with Store(root) as day:
        scans = day.scans()
        records = [e for e in day.entries() if isinstance(e, Message)]
    gone = 0
    while gone < len(scans) - 1 and scans[gone].last_store_timestamp < cutoff:  # stops at the first one kept
        gone += 1
    first = scans[gone].segment.start_offset
    deleted_cq, expired_units = [], {}
    for qdir in sorted((root / "consumequeue").glob("*/*")):
        files = sorted(qdir.iterdir())
        deleting = True
        for f in files:
            units = _cq_units(f)
            if deleting and f != files[-1] and units and units[-1] < first:
                deleted_cq.append(f.relative_to(root).as_posix())
                continue
            deleting = False
            below = sum(1 for u in units if u < first)
            if below:
                expired_units[f.relative_to(root).as_posix()] = below
    slots = sc["geometry"]["index_slots"]
    index = sorted((root / "index").iterdir())
    deleted_index, expired_items, deleting = [], {}, True
    for f in index:
        header, items = _index_items(f, slots)
        if deleting and f != index[-1] and header.end_phy_offset < first:
            deleted_index.append(f"index/{f.name}")
            continue
        deleting = False
        below = sum(1 for phy in items if phy < first)
        if below:
            expired_items[f"index/{f.name}"] = below
    return {
        "first": first, "segments": len(scans), "deleted_segments": [s.segment.name for s in scans[:gone]], "deleted_cq": deleted_cq,
        "expired_units": expired_units, "deleted_index": deleted_index, "expired_items": expired_items,
        "kept_records": sum(1 for r in records if r.physical_offset >= first), "first_record": records[0],
        "newest_index": index[-1].name, "consumers": aging["consumers"], "orders": sc["topics"]["orders"],
    }


# --- (a) reproducible ------------------------------------------------------------------------------------------


def test_committed_store_has_the_recorded_hash():
    assert _store_digest(AGED) == STORE_SHA256, f"sample_store_aged/ changed: its digest is {_store_digest(AGED)}"


def test_regenerating_gives_identical_bytes(tmp_path):
    import_or_skip("lz4.frame")
    import_or_skip("zstandard")
    with Store(AGED) as store:
        reason = _codecs_reproduce([e for e in store.entries() if isinstance(e, Message)])
    if reason:
        pytest.skip(reason)
    out = tmp_path / "regenerated"
    subprocess.run([sys.executable, str(SCRIPT), "--aged", "--out", str(out)], check=True, capture_output=True,
                   timeout=120)
    committed, fresh = _files(AGED), _files(out)
    assert list(fresh) == list(committed)
    assert [name for name in committed if committed[name].read_bytes() != fresh[name].read_bytes()] == []
    assert _generated(out / "README.md") == _generated(AGED / "README.md")


def test_small():
    size = sum(p.stat().st_size for p in AGED.rglob("*") if p.is_file())
    assert size < 400 * 1024


# --- (b) what it answers ---------------------------------------------------------------------------------------


def test_the_aging_did_what_the_broker_does(expected):
    """The head segments, consume-queue and index files the rules remove are exactly the ones missing."""
    assert expected["deleted_segments"] and expected["deleted_cq"] and expected["deleted_index"]
    present = {p.name for p in (AGED / "commitlog").iterdir()}
    assert not present & set(expected["deleted_segments"]) and min(present) == f"{expected['first']:020d}"
    assert all(not (AGED / f).exists() for f in expected["deleted_cq"] + expected["deleted_index"])
    assert (AGED / "abort").exists() and (AGED / "abort").read_bytes() == b""


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_verify_exits_0_with_the_expired_counts(capsys, expected):
    code, out, _ = _run(capsys, "verify", str(AGED), "--json")
    report = json.loads(out)
    assert code == 0 and report["errors"] == 0 and report["warnings"] == 0
    assert report["messages"] == expected["kept_records"]
    by_code: dict[str, dict[str, int]] = {}
    for p in report["problems"]:
        assert p["severity"] == "info", p
        by_code.setdefault(p["code"], {})[p["file"]] = int(p["reason"].split(" ", 1)[0]) if p["code"].endswith(
            ("cq-expired", "index-expired")) else 1
    assert by_code["cq-expired"] == expected["expired_units"]
    assert by_code["index-expired"] == expected["expired_items"]
    assert "consumer-offset-expired" in by_code


def test_verify_names_every_consumer_offset_below_min(capsys, expected):
    _, out, _ = _run(capsys, "verify", str(AGED), "--json")
    found = [p for p in json.loads(out)["problems"] if p["code"] == "consumer-offset-expired"]
    assert len(found) == sum(len(row["offsets"]) for row in expected["consumers"])


def test_consumer_offsets_below_min_are_the_stopped_group(expected):
    with Store(AGED) as store:
        rows = [r for r in store.consumer_lag()
                if r["consumer_offset"] < store.queue(r["topic"], r["queue_id"]).info().min_offset]
    want = {(row["group"], expected["orders"], int(q), o) for row in expected["consumers"]
            for q, o in row["offsets"].items()}
    assert {(r["group"], r["topic"], r["queue_id"], r["consumer_offset"]) for r in rows} == want


def test_info_says_the_first_offset_and_the_abort_file(capsys, expected):
    code, out, _ = _run(capsys, "info", str(AGED), "--json")
    info = json.loads(out)
    assert code == 0 and info["min_physical_offset"] == expected["first"]
    assert info["abort_file"] and not info["clean_shutdown"]
    assert len(info["segments"]) == expected["segments"] - len(expected["deleted_segments"])


def test_preflight_destroys_the_newest_index_file(capsys, expected):
    """IndexService.load(false): the newest file ends after the checkpoint's indexMsgTimestamp (the end of the last
    full file, which the writer's checkpoint holds as the broker's flush leaves it)."""
    code, out, _ = _run(capsys, "preflight", str(AGED), "--json")
    plan = json.loads(out)
    assert code == 4 and plan["mode"] == "abnormal"
    assert [c["file"] for c in plan["index_cuts"]] == [f"index/{expected['newest_index']}"]
    with Store(AGED) as store:
        p = preflight(store)
    assert p.discarded.count == 0 and p.queue_cuts == [] and p.index_cuts[0].lost_keys > 0


def test_a_removed_message_answers_expired(capsys, expected):
    first = expected["first_record"]
    code, _, err = _run(capsys, "show", str(AGED), first.msg_id)
    assert code == 1 and "expired" in err and f"first offset {expected['first']}" in err
    code, _, err = _run(capsys, "show", str(AGED), str(first.physical_offset))
    assert code == 1 and "expired" in err
    topic, key = "InventoryEvents", "SKU-10037"  # the README's key: every record of it was removed
    code, _, err = _run(capsys, "key", str(AGED), topic, key)
    assert code == 1 and "expired" in err
    code, _, err = _run(capsys, "key", str(AGED), topic, "SKU-NOT-IN-THE-CATALOG")
    assert code == 1 and "expired" not in err and "no message" in err


def test_readme_commands_run_with_their_exit_codes(capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    lines = [line for line in _generated(AGED / "README.md").splitlines() if line.startswith("rmq-inspect ")]
    assert len(lines) == 5
    for line in lines:
        command, _, comment = line.partition("    # ")
        want = int(comment.split("exit code ", 1)[1][0]) if "exit code" in comment else 0
        assert main(shlex.split(command)[1:]) == want, line
        capsys.readouterr()
