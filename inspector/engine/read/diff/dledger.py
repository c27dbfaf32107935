"""Two DLedger members' logs by Raft index: where their terms diverge (Raft's log matching: after the first
index whose entries carry different terms, the logs are not the same history, and the follower's part after it
is what the leader's DLedgerEntryPusher truncates), and what each holds past the other's end."""

from __future__ import annotations

import numpy as np

from inspector.engine.read.diff.result import TermDiff
from inspector.engine.read.dledger.dledger import ENTRY_MAGICS, DLedgerMember


def _terms(member: DLedgerMember) -> tuple[np.ndarray, np.ndarray]:
    """(Raft index, term) of every entry the member's index files hold, in index order."""
    runs, _ = member.index_runs()
    units = [r.units[np.isin(r.units["magic"], ENTRY_MAGICS)] for r in runs]
    units = [u for u in units if len(u)]
    if not units:
        empty = np.zeros(0, np.int64)
        return empty, empty
    both = np.concatenate(units)
    return both["index"].astype(np.int64), both["term"].astype(np.int64)


def diff_terms(a: DLedgerMember, b: DLedgerMember) -> TermDiff:
    ia, ta = _terms(a)
    ib, tb = _terms(b)
    common, at_a, at_b = np.intersect1d(ia, ib, assume_unique=False, return_indices=True)
    differ = np.flatnonzero(ta[at_a] != tb[at_b])
    first = int(common[differ[0]]) if len(differ) else None
    return TermDiff(a.label, b.label,
                    int(ia[-1]) if len(ia) else None, int(ta[-1]) if len(ta) else None,
                    int(ib[-1]) if len(ib) else None, int(tb[-1]) if len(tb) else None,
                    first,
                    int(ta[at_a[differ[0]]]) if first is not None else None,
                    int(tb[at_b[differ[0]]]) if first is not None else None,
                    int(len(np.setdiff1d(ia, ib))), int(len(np.setdiff1d(ib, ia))))
