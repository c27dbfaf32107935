"""``preflight``: what the next broker start will do and cut (``maintain/verify/preflight_plan.py`` models the steps of a
plain store); a DLedger store's recovery is verify's DLedger recovery preview (``DLedgerMmapFileStore.recover``,
DLedger 0.3.1.2), not a second one. It lives here because that preview is verify's (the read room cannot import it)."""

from __future__ import annotations

from inspector.engine.maintain.verify.dledger import check_dledger
from inspector.engine.maintain.verify.preflight_plan import SAMPLE, Preflight, preflight_plan
from inspector.engine.model.records import Problem
from inspector.engine.read.dledger.dledger import member_of

__all__ = ["preflight"]


def preflight(store, *, sample: int = SAMPLE) -> Preflight:
    """What the next start of ``store`` does: normal or abnormal and why, where the log ends, the records, queue
    units and index keys it cuts (``sample`` of each listed by name, the rest counted), what stops it. Read-only."""
    line = None
    if member_of(store.root, getattr(store, "dledger_data", None)) is not None:
        # the entries' own header checks are the walk's findings, which the preview starts from (as verify does)
        walk = [e for e in store.entries(check_crc=True) if isinstance(e, Problem)]
        found = check_dledger(store, walk)
        line = None if found is None else found.recovery
    return preflight_plan(store, sample=sample, dledger=line)
