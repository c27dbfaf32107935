"""Two DLedger members' logs by Raft index: where their terms diverge (Raft's log matching: after the first
index whose entries carry different terms, the logs are not the same history, and the follower's part after it
is what the leader's DLedgerEntryPusher truncates), and what each holds past the other's end. Both index files are
read a chunk at a time, side by side (memory does not grow with the log: a long-lived member holds 100 million
entries)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from inspector.engine.read.diff.result import TermDiff
from inspector.engine.read.dledger.dledger import ENTRY_MAGICS, DLedgerMember

_EMPTY = np.zeros(0, np.int64)


def _entries(member: DLedgerMember) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(Raft index, term) of the entries of each chunk of the member's index files, in index order."""
    for chunk in member.index_chunks():
        units = chunk.units[np.isin(chunk.units["magic"], ENTRY_MAGICS)]
        if len(units):
            yield units["index"].astype(np.int64), units["term"].astype(np.int64)


class _Side:
    """One member's entries as a sorted stream: the ones taken so far, not yet compared."""

    def __init__(self, member: DLedgerMember) -> None:
        self.chunks = _entries(member)
        self.index, self.term = _EMPTY, _EMPTY
        self.done = False
        self.last: tuple[int, int] | None = None

    def fill(self) -> None:
        for index, term in self.chunks:
            self.index, self.term = np.concatenate([self.index, index]), np.concatenate([self.term, term])
            self.last = (int(index[-1]), int(term[-1]))
            return
        self.done = True

    def take(self, upto: int) -> tuple[np.ndarray, np.ndarray]:
        """The entries with index <= ``upto``, removed from the stream."""
        n = int(np.searchsorted(self.index, upto, side="right"))
        out = self.index[:n], self.term[:n]
        self.index, self.term = self.index[n:], self.term[n:]
        return out


def diff_terms(a: DLedgerMember, b: DLedgerMember) -> TermDiff:
    sa, sb = _Side(a), _Side(b)
    diverges: tuple[int, int, int] | None = None
    only_a = only_b = 0
    while True:
        for side in (sa, sb):
            if not len(side.index) and not side.done:
                side.fill()
        if not len(sa.index) or not len(sb.index):
            break
        # every entry up to the smaller of the two last indexes taken is in hand on both sides (indexes ascend)
        upto = min(int(sa.index[-1]), int(sb.index[-1]))
        ia, ta = sa.take(upto)
        ib, tb = sb.take(upto)
        common, at_a, at_b = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        only_a += len(ia) - len(common)
        only_b += len(ib) - len(common)
        differ = np.flatnonzero(ta[at_a] != tb[at_b])
        if diverges is None and len(differ):
            k = int(differ[0])
            diverges = (int(common[k]), int(ta[at_a[k]]), int(tb[at_b[k]]))
    for side in (sa, sb):  # what one holds past the other's end
        while True:
            only = len(side.index)
            side.index, side.term = _EMPTY, _EMPTY
            if side is sa:
                only_a += only
            else:
                only_b += only
            if side.done:
                break
            side.fill()
    (la, lta), (lb, ltb) = sa.last or (None, None), sb.last or (None, None)
    return TermDiff(a.label, b.label, la, lta, lb, ltb, *(diverges or (None, None, None)), only_a, only_b)
