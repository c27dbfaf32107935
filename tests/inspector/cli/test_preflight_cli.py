"""``rmq-inspect preflight``: the table, ``--json``, exit 0 when the start loses nothing and 4 when it loses data
or would not start, exit 2 on a path that is no store; nothing written, no traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.aged_store import write_store

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store"


def test_the_sample_store_starts_normally(cli) -> None:
    code, out, _ = cli("preflight", str(SAMPLE))
    assert code == 0
    assert out.startswith("preflight: normal start, nothing lost")
    code, out, _ = cli("preflight", str(SAMPLE), "--json")
    report = json.loads(out)
    assert code == 0 and report["starts"] and not report["loses_data"] and report["mode"] == "normal"
    assert report["recovery"]["end_offset"] > 0


def test_a_stray_empty_segment_is_exit_4_with_one_line(tmp_path: Path, cli) -> None:
    root = tmp_path / "copy"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / "00000000000000000001").write_bytes(b"")
    code, out, err = cli("preflight", str(root))
    assert code == 4 and out.startswith("preflight: the broker would not start")
    assert "commitlog/00000000000000000001 @ 0" in err and "(empty-segment)" in err


def test_an_abnormal_start_that_cuts_records_lists_them(tmp_path: Path, cli) -> None:
    written = write_store(tmp_path, 300)
    seg = sorted((tmp_path / "commitlog").iterdir())[-1]
    with open(seg, "r+b") as f:  # flip a body byte of the last record: its CRC fails on recovery
        at = written[-1].physical_offset - int(seg.name) + 120
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0xFF]))
    (tmp_path / "abort").write_bytes(b"")
    code, out, _ = cli("preflight", str(tmp_path), "--json")
    report = json.loads(out)
    assert code == 4 and report["mode"] == "abnormal" and report["loses_data"]
    assert report["discarded"]["count"] == 1 and report["discarded"]["first_offset"] == written[-1].physical_offset
    code, out, _ = cli("preflight", str(tmp_path))
    assert code == 4 and "discarded: 1 readable record(s)" in out and "Consume-queue files cut" in out


def test_a_path_that_is_no_store_is_exit_2(tmp_path: Path, cli) -> None:
    code, _, err = cli("preflight", str(tmp_path))
    assert code == 2 and err.strip()
