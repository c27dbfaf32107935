"""verify: index items point at records in log order (IndexService.buildIndex skips a record below the file's
endPhyOffset), so an item pointing below an earlier item's record is index-order, on every path."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

from inspector.engine import Store
from inspector.engine.maintain.verify.verify import verify
from inspector.engine.scan.kernels import python_only

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def _order_findings(root: Path, **kw) -> list[tuple]:
    with Store(root) as store:
        report = verify(store, **kw)
    return [(p.file, p.offset, p.code) for p in report.problems if p.code == "index-order"]


def test_an_item_moved_back_in_the_log_is_named_on_every_path(tmp_path) -> None:
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    with Store(root) as store:
        reader = store.index_files()[1]
        rel, items_at = reader.rel, 40 + reader.slot_count * 4
    path = root / rel
    raw = bytearray(path.read_bytes())
    first_phy = struct.unpack_from(">q", raw, items_at + 20 + 4)[0]  # item 1: the file's lowest offset
    k = 40
    assert struct.unpack_from(">q", raw, items_at + k * 20 + 4)[0] > first_phy
    struct.pack_into(">q", raw, items_at + k * 20 + 4, first_phy - 1)
    path.write_bytes(bytes(raw))
    want = [(rel, items_at + k * 20 + 4, "index-order")]
    assert _order_findings(root) == want
    assert _order_findings(root, fast=False) == want
    with python_only():
        assert _order_findings(root) == want
    assert _order_findings(SAMPLE) == []
