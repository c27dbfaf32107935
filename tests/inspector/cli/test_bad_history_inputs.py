"""Bad input from issue 29's Done means, over info, verify, preflight and key: a store whose first segment is not
aligned to the segment size, a checkpoint in the future, an index file covering nothing. Each gets a clear answer
naming the file and offset, a documented exit code, no traceback, and nothing is written."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import struct
from pathlib import Path

import pytest

from inspector.cli.main import main as cli_main
from tests.store_digest import tree_digest

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store"
FUTURE_MS = 4_102_444_800_000  # 2100-01-01


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(list(argv))
    text = out.getvalue()
    assert "Traceback" not in text
    return code, " ".join(text.split())


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def misaligned_first_segment(root: Path) -> str:
    """The first segment renamed off the grid (1000, not a multiple of 65,536): no retention made it."""
    (root / "commitlog" / f"{0:020d}").rename(root / "commitlog" / f"{1000:020d}")
    return f"commitlog/{1000:020d}"


def checkpoint_in_the_future(root: Path) -> str:
    data = bytearray((root / "checkpoint").read_bytes())
    for at in (0, 8, 16):
        struct.pack_into(">q", data, at, FUTURE_MS)
    (root / "checkpoint").write_bytes(bytes(data))
    return "checkpoint"


def index_file_covering_nothing(root: Path) -> str:
    """A new index file as IndexService creates it before its first put: a header of zeros (indexCount 1)."""
    size = os.path.getsize(sorted((root / "index").iterdir())[0])
    data = bytearray(size)
    struct.pack_into(">qqqqii", data, 0, 0, 0, 0, 0, 0, 1)
    (root / "index" / "20991231000000000").write_bytes(bytes(data))
    return "index/20991231000000000"


@pytest.fixture(params=[misaligned_first_segment, checkpoint_in_the_future, index_file_covering_nothing],
                ids=lambda f: f.__name__)
def bad(request, tmp_path):
    root = _copy(tmp_path)
    rel = request.param(root)
    before = tree_digest(root)
    yield request.param.__name__, root, rel
    assert tree_digest(root) == before  # nothing written, whatever the command


def test_info_verify_preflight_and_key(bad) -> None:
    name, root, rel = bad
    code, info = _run("info", str(root))
    assert code == 0
    code, out = _run("verify", str(root), "--json")
    verify = json.loads(out)
    mine = [(p["file"], p["offset"], p["code"], p["severity"]) for p in verify["problems"] if p["file"] == rel]
    code_p, pre = _run("preflight", str(root))
    assert code_p == 0 and "preflight: normal start, nothing lost" in pre  # the start goes ahead and loses nothing
    if name == "misaligned_first_segment":
        assert f"error: {rel} @ 0: named 1000, not a multiple of the segment size 65536" in info
        assert code == 4 and (rel, 0, "misaligned-segment", "error") in mine
        assert f"note: {rel} @ 0: misaligned-segment" in pre
        code, key = _run("key", str(root), "OrderEvents", "order-1108")  # its record is at 0, in that file
        assert code == 1 and f"below the first segment {rel} (at 0)" in key and "off the segment grid" in key
        assert "expired" not in key  # no retention made it
    elif name == "checkpoint_in_the_future":
        assert "physicMsgTimestamp 2100-01-01 00:00:00.000" in info
        assert code == 4 and {(f, o) for f, o, c, _ in mine if c == "checkpoint-ahead"} == {
            (rel, 0), (rel, 8), (rel, 16)}
        assert f"note: {rel} @ 0: checkpoint-ahead: physicMsgTimestamp {FUTURE_MS} is after the newest record" in pre
        assert _run("key", str(root), "OrderEvents", "order-1108")[0] == 0
    else:
        assert "20991231000000000" in info and "1 (0 items)" in info
        assert code == 0 and mine == []  # a new file is normal: nothing to say
        assert _run("key", str(root), "OrderEvents", "order-1108")[0] == 0
        code, key = _run("key", str(root), "OrderEvents", "no-such-key")
        assert code == 1 and "no message indexed under OrderEvents#no-such-key" in key


def test_a_checkpoint_in_the_future_is_said_so_by_info_preflight_and_verify(tmp_path) -> None:
    root = _copy(tmp_path)
    rel = checkpoint_in_the_future(root)
    before = tree_digest(root)
    code, info = _run("info", str(root))
    assert code == 0 and f"checkpoint in the future: physicMsgTimestamp {FUTURE_MS} (2100-01-01" in info
    assert "recovers from the newest segment only (CommitLog.isMappedFileMatchedRecover)" in info
    code, pre = _run("preflight", str(root))
    assert code == 0 and f"note: checkpoint in the future: physicMsgTimestamp {FUTURE_MS}" in pre
    code, out = _run("verify", str(root), "--json")
    ahead = [p for p in json.loads(out)["problems"] if p["code"] == "checkpoint-ahead"]
    assert code == 4 and [p["offset"] for p in ahead] == [0, 8, 16]
    assert all(p["file"] == rel and p["severity"] == "error" and "after this machine's clock" in p["reason"]
               for p in ahead)
    code, out = _run("info", str(root), "--json")
    assert code == 0 and "in the future" not in out  # info --json stays the same document
    assert tree_digest(root) == before


def test_an_index_file_without_items_before_the_newest_is_a_finding(tmp_path) -> None:
    """The newest file without items is one the broker just made (above: nothing to say); one before another
    covers nothing and never comes from a broker: a warning naming the file and its indexCount field."""
    root = _copy(tmp_path)
    size = os.path.getsize(sorted((root / "index").iterdir())[0])
    data = bytearray(size)
    struct.pack_into(">qqqqii", data, 0, 0, 0, 0, 0, 0, 1)
    rel = "index/20000101000000000"
    (root / rel).write_bytes(bytes(data))
    before = tree_digest(root)
    code, out = _run("verify", str(root), "--json")
    mine = [(p["file"], p["offset"], p["code"], p["severity"]) for p in json.loads(out)["problems"] if p["file"] == rel]
    assert code == 0 and mine == [(rel, 36, "index-covers-nothing", "warning")]
    code, text = _run("verify", str(root))
    assert code == 0 and "index-covers-nothing" in text and "indexCount 1: no items, before the newest" in text
    assert _run("key", str(root), "OrderEvents", "order-1108")[0] == 0  # the lookup passes it by
    assert tree_digest(root) == before
