"""Fuzzing the RocksDB consume queue (issue 22, item 4: every file kind the engine reads). A copy of
``sample_store/`` whose ``consumequeue/`` is a RocksDB database holding the same units (as RocketMQ 5.2+ with
``storeType=defaultRocksDB`` writes it: units in the default column family, each queue's bounds in ``offset``)
gets one damage in one of its files (a flipped bit, a zeroed or garbage run, a truncation) and the commands
run on it in-process: no traceback, an exit code from the documented table, the store unchanged byte for byte,
and no silently wrong data: when ``verify`` reports nothing, every unit reads back as it was written
(RocksDB's block checksums make that the only honest outcome; a read it cannot make is a ``rocksdb-read``
finding naming the file and offset, an open it cannot make exit 3).

Found on the code before: a corrupt data block raised rocksdict's plain ``Exception`` out of ``info`` and
``verify`` (a traceback), and a corrupt block of the ``offset`` column family ended its read quietly (every
queue gone, verify exit 0); both are findings now. A MANIFEST cut short opens as a database without its data
files (RocksDB's own recovery): the records then have no queue, which verify's record-side check names
(``cq-missing``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from external_tools import import_or_skip
from fuzz_support import changed, fingerprint, run_cli
from hypothesis import example, given
from hypothesis import strategies as st
from test_fuzz_store import LONG_RUN, SAMPLE, fuzz_settings, watchdog

from inspector.engine import Store

rocksdict = import_or_skip("rocksdict")

pytestmark = [pytest.mark.timeout(0 if LONG_RUN else 300), pytest.mark.usefixtures("compiled_kernels")]
DAMAGES = ("flip", "zero", "garbage", "truncate")


def _units(root: Path) -> dict[tuple[str, int], list[tuple]]:
    """Every queue's units as (queue offset, physical offset, size, tagsCode)."""
    with Store(root) as store:
        return {(t, q): [(u.queue_offset, u.physical_offset, u.size, u.tags_code)
                         for u in store.queue(t, q).units(0)] for t, q in store.queue_ids()}


@pytest.fixture(scope="module")
def rocks(tmp_path_factory) -> tuple[Path, list[str], dict]:
    """The pristine RocksDB store, its database files (by name) and its units."""
    from rocksdict import Options, Rdict

    from parsers.rocksdb_cq import CqValue, cq_key, offset_key

    root = tmp_path_factory.mktemp("rocks") / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    plain = _units(root)
    shutil.rmtree(root / "consumequeue")
    opt = Options(raw_mode=True)
    opt.create_if_missing(True)
    db = Rdict(str(root / "consumequeue"), opt)
    bounds = db.create_column_family("offset", Options(raw_mode=True))
    for (topic, qid), units in plain.items():
        for qoff, phy, size, tags in units:
            db[cq_key(topic, qid, qoff)] = CqValue.build(dict(physical_offset=phy, size=size, tags_code=tags,
                                                              store_timestamp=1_700_000_000_000))
        for kind, (qoff, phy, *_) in (("min", units[0]), ("max", units[-1])):
            bounds[offset_key(topic, kind, qid)] = phy.to_bytes(8, "big") + qoff.to_bytes(8, "big")
    db.close()
    del db, bounds
    files = _settled(root / "consumequeue")
    (root / "consumequeue" / "rocksdict-config.json").unlink(missing_ok=True)
    files = [f for f in files if f != "rocksdict-config.json"]
    assert _units(root) == plain and any(f.endswith(".sst") for f in files)
    return root, files, plain


def _settled(folder: Path) -> list[str]:
    """The database's files once RocksDB's background work after close (deleting the write-ahead log it
    flushed) is over: the same non-empty files twice, 0.2 s apart."""
    import time

    seen = None
    for _ in range(50):
        now = sorted(p.name for p in folder.iterdir() if p.is_file() and p.stat().st_size)
        if now == seen:
            return now
        seen = now
        time.sleep(0.2)
    return seen


def _damage(root: Path, files: list[str], pick: int, kind: str, at: int, data: bytes) -> str:
    path = root / "consumequeue" / files[pick % len(files)]
    raw = bytearray(path.read_bytes())
    at %= max(1, len(raw))
    if kind == "flip":
        raw[at] ^= 1 << (data[0] % 8 if data else 0)
    elif kind == "zero":
        raw[at : at + len(data) + 1] = bytes(len(raw[at : at + len(data) + 1]))
    elif kind == "garbage":
        raw[at : at + len(data)] = data[: len(raw) - at]
    else:
        del raw[at:]
    path.write_bytes(bytes(raw))
    return f"{path.name} {kind} @ {at}"


def _check(rocks, scratch: Path, pick: int, kind: str, at: int, data: bytes) -> list[str]:
    pristine_root, files, plain = rocks
    root = scratch / "store"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(pristine_root, root)
    what = _damage(root, files, pick, kind, at, data)
    before = fingerprint(root)
    broken = []
    verify = run_cli(["verify", str(root), "--json"])
    runs = [verify, run_cli(["info", str(root), "--json"]),
            run_cli(["messages", str(root), "--topic", "OrderEvents", "--queue", "3", "--json"]),
            run_cli(["key", str(root), "OrderEvents", "order-1108"])]
    broken += [f"{what}: {s}" for r in runs for s in r.symptoms()]
    broken += [f"{what}: {s}" for s in changed(before, fingerprint(root))]
    if verify.code == 0:  # nothing reported: then nothing may be missing or wrong
        try:
            units = _units(root)
        except Exception as e:  # noqa: BLE001 - verify said nothing, so a failing read is the finding
            broken.append(f"{what}: verify exit 0, yet reading the units fails: {e}")
        else:
            if units != plain:
                broken.append(f"{what}: verify exit 0, yet the units read differ from those written")
    elif verify.code == 4:
        codes = {p["code"] for p in json.loads(verify.out)["problems"]}
        if not codes:
            broken.append(f"{what}: verify exit 4 with no finding")
    return broken


@fuzz_settings(30, long_share=0.1)
@given(pick=st.integers(0, 15), kind=st.sampled_from(DAMAGES), at=st.integers(0, 1 << 16),
       data=st.binary(min_size=1, max_size=64))
@example(pick=1, kind="garbage", at=0, data=b"\xff" * 16)  # the first data block: a traceback before the fix
@example(pick=5, kind="truncate", at=116, data=b"\x00")  # MANIFEST cut: RocksDB opens without the data files
def test_a_damaged_rocksdb_queue_is_reported_never_a_traceback(rocks, tmp_path_factory, pick, kind, at, data):
    with watchdog():
        broken = _check(rocks, tmp_path_factory.mktemp("rocks-damaged"), pick, kind, at, data)
    assert not broken, "; ".join(broken)


def test_a_corrupt_block_is_a_finding_with_its_file_and_offset(rocks, tmp_path):
    """verify names the damaged .sst and the block's offset (rocksdb-read, exit 4); info lists it among its
    problems; messages of the queue ends there with the same finding (exit 0, the units before it printed)."""
    pristine_root, files, _ = rocks
    root = tmp_path / "store"
    shutil.copytree(pristine_root, root)
    sst = next(f for f in files if f.endswith(".sst") and (root / "consumequeue" / f).stat().st_size > 4096)
    path = root / "consumequeue" / sst
    raw = bytearray(path.read_bytes())
    raw[10] ^= 0x40  # inside the first data block (the units of the first queues by key)
    path.write_bytes(bytes(raw))
    verify = run_cli(["verify", str(root), "--json"])
    assert verify.code == 4, verify.err
    found = [p for p in json.loads(verify.out)["problems"] if p["code"] == "rocksdb-read"]
    assert found and found[0]["file"] == f"consumequeue/{sst}" and found[0]["offset"] == 0
    assert "checksum" in found[0]["reason"] and "/tmp/rmq-inspect-rocksdb" not in found[0]["reason"]
    info = run_cli(["info", str(root), "--json"])
    assert info.code == 0 and any(p["code"] == "rocksdb-read" for p in json.loads(info.out)["problems"])
