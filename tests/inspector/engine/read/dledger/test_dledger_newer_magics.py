"""NOOP (magic 2) and CONFIG_CHANGE (magic 3) entries, which DLedger 0.4.0+ writes (DLedgerEntryType; checked in
openmessaging/dledger HEAD: NORMAL 1, NOOP 2, CONFIG_CHANGE 3, all valid in its recovery), are framed like any
entry but hold no commitlog record: named as warnings (which DLedger writes them, and that 0.3.1.2, the one
RocketMQ up to 5.3.1 ships, writes only magic 1), stepped over; a record after them is read as usual. The
entries are packed by hand here (DLedgerEntryCoder.encode's field order), appended to a copy of the sample."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from dledger_newer import CONFIG_BODY, LAST_FILE, newer_entries_store

from inspector.cli.main import main
from inspector.engine import Message, Problem, Store
from inspector.engine.read.store.answers import recover


@pytest.fixture
def newer(tmp_path: Path) -> tuple[Path, dict]:
    """After entry 301: a NOOP (302, term 5), a CONFIG_CHANGE (303), then a NORMAL entry (304) whose record is
    entry 301's with its PHYSICALOFFSET moved to the new pos + 48; index units for all three."""
    return newer_entries_store(tmp_path / "s")


def test_the_walk_steps_over_them_and_reads_the_record_after(newer) -> None:
    root, at = newer
    with Store(root) as store:
        tail = list(store.entries(at["noop"] - 500))
        found = [e for e in tail if isinstance(e, Problem)]
        msgs = [e for e in tail if isinstance(e, Message)]
        assert [(p.offset, p.code, p.severity) for p in found] == [
            (at["noop"] - LAST_FILE, "dledger-newer-entry", "warning"),
            (at["config"] - LAST_FILE, "dledger-newer-entry", "warning")]
        assert found[0].reason.startswith("a NOOP entry (DLedger 0.4+; magic 2): Raft index 302, term 5, no body")
        assert "DLedger 0.3.1.2, the one RocketMQ up to 5.3.1 ships, writes only magic 1" in found[0].reason
        assert found[1].reason.startswith(f"a CONFIG_CHANGE entry (DLedger 0.4+; magic 3): Raft index 303, term 5, "
                                          f"a {len(CONFIG_BODY)}-byte body")
        assert (msgs[-1].physical_offset, msgs[-1].raft_index, msgs[-1].raft_term) == (at["normal"] + 48, 304, 5)
        assert store.max_offset() > at["normal"]
        assert store.message_at(at["normal"] + 48).raft_index == 304


def test_verify_and_info_name_them_without_a_bad_magic(newer, capsys) -> None:
    root, at = newer
    capsys.readouterr()
    assert main(["verify", str(root), "--json"]) == 0  # warnings only
    report = json.loads(capsys.readouterr().out)
    codes = [p["code"] for p in report["problems"]]
    # entry 304's record (entry 301's copied by hand) has no item in index/: since issue 29 verify names that range
    gap = [p for p in report["problems"] if p["code"] == "index-gap"]
    assert [(p["offset"], p["severity"]) for p in gap] == [(at["normal"] + 48 - LAST_FILE, "warning")]
    codes = [c for c in codes if c != "index-gap"]
    assert codes == ["dledger-newer-entry"] * 2
    # no bad magic, no Raft index gap (302 and 303 are entries too), no index unit disagreeing with its entry
    assert not {"dledger-magic", "dledger-index", "dledger-index-unit", "dledger-term"} & set(codes)
    noop = next(p for p in report["problems"] if p["code"] == "dledger-newer-entry")
    assert (noop["file"], noop["offset"], noop["severity"]) == (at["file"], at["noop"] - LAST_FILE, "warning")
    preview = report["dledger_recovery"]
    assert preview.startswith("DLedger recovery would read every entry up to Raft index 304 (term 5)")
    assert (f"DLedger 0.3.1.2 (RocketMQ's up to 5.3.1) would stop at the NOOP entry at pos {at['noop']} "
            f"({at['file']} @ {at['noop'] - LAST_FILE}) and truncate the data from there") in preview
    capsys.readouterr()
    assert main(["info", str(root), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)["dledger"]
    assert (d["entries"], d["last_index"]) == (305, 304)
    assert d["terms"][-1]["term"] == 5 and d["terms"][-1]["first_index"] == 302
    assert d["terms"][-1]["first_store_timestamp"] is None  # a NOOP has no record to take a time from
    # the log's recovery is the writer's (0.4+): it steps over them, so rebuild dispatches the record after them
    with Store(root) as store:
        rec = recover(store)
    assert (rec.end_offset, rec.last_record_offset) == (at["normal"] + 48 + store_size(root, at), at["normal"] + 48)


def store_size(root: Path, at: dict) -> int:
    with Store(root) as store:
        return store.message_at(at["normal"] + 48).total_size


def test_an_unknown_magic_is_still_a_bad_magic(newer) -> None:
    root, at = newer
    data = root / at["file"]
    b = bytearray(data.read_bytes())
    struct.pack_into(">i", b, at["noop"] - LAST_FILE, 4)
    data.write_bytes(bytes(b))
    with Store(root) as store:
        bad = [e for e in store.entries(at["noop"] - 500) if isinstance(e, Problem) and e.code == "dledger-magic"]
    assert bad and bad[0].offset == at["noop"] - LAST_FILE
    assert "entry magic is 4, not 1 (MAGIC_1) or -1 (end of file)" in bad[0].reason


def test_the_hex_view_draws_them_as_entries(newer) -> None:
    from inspector.engine.present.layout import regions

    root, at = newer
    with Store(root) as store:
        found = regions(store.commitlog, at["noop"] - 16, at["normal"] + 60)
    kinds = [(r.kind, r.start, r.end) for r in found]
    assert kinds[1:4] == [("entry", at["noop"], at["config"]), ("entry", at["config"], at["normal"]),
                          ("entry", at["normal"], at["normal"] + 48)]
    assert found[1].label == "DLedger NOOP entry 302, term 5 (DLedger 0.4+: no record)"
    assert found[1].fields[0].value == "2 (NOOP, DLedger 0.4+)"
    assert found[2].fields[8].value == f"{len(CONFIG_BODY)} (bytes of body after the header, no commitlog record)"
    assert "damaged" not in {r.kind for r in found}
