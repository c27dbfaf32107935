"""``preflight`` of a DLedger store: verify's DLedger recovery preview (DLedgerMmapFileStore.recover, DLedger
0.3.1.2) says where the log ends; damage it would truncate from is a loss (exit 4)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

from inspector.engine import Store, preflight

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store_dledger"


def test_the_dledger_sample_reads_every_entry(tmp_path: Path) -> None:
    with Store(SAMPLE) as store:
        plan = preflight(store)
    assert plan.dledger is not None and "nothing truncated" in plan.dledger
    assert plan.exit_code == 0 and plan.recovery is None


def test_an_entry_whose_pos_is_not_its_place_is_truncated_from(tmp_path: Path) -> None:
    """dledger#285: an entry's pos field says 0: DLedger's recovery stops there and truncates the rest."""
    root = tmp_path / "store"
    shutil.copytree(SAMPLE, root)
    seg = root / "dledger-n0" / "data" / "00000000000000131072"
    raw = bytearray(seg.read_bytes())
    raw[24:32] = struct.pack(">q", 0)
    seg.write_bytes(bytes(raw))
    with Store(root) as store:
        plan = preflight(store)
    assert plan.dledger.startswith("DLedger recovery would stop at pos 131072 ")
    assert plan.loses_data and plan.exit_code == 4
