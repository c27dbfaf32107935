"""The commitlog of a DLedger broker being written (spec part 2 §16): an optional pre-DLedger ``commitlog/`` part,
its last segment padded with a BLANK (``DLedgerCommitLog.recover``: dividedCommitlogOffset = that segment's
end), then ``dledger-<id>/data/`` entries (48-byte header + record, ``MmapFileList.preAppend``'s -1 marker
where the next entry + 8 bytes do not fit), one 32-byte ``index/`` unit per entry, and at close the
``checkpoint`` and ``currterm`` properties files.

:class:`DLedgerLogWriter` has :class:`~inspector.engine.maintain.write.segments.SegmentWriter`'s interface
(``reserve`` / ``write`` / ``close``), so :class:`~inspector.engine.maintain.write.writer.StoreWriter` writes
records, dispatches them and names their msgIds the same way: ``reserve`` returns pos + 48, the offset
``DLedgerCommitLog`` reports as ``wroteOffset`` and writes into the record's PHYSICALOFFSET.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.maintain.write.segments import SegmentWriter
from inspector.engine.model.errors import BadInput
from parsers.dledger import (
    CHECKPOINT_KEYS_JAVA8,
    ENTRY_HEADER_SIZE,
    INDEX_FILE_SIZE,
    INDEX_UNIT_SIZE,
    MAGIC_1,
    CurrTerm,
    DLedgerCheckpoint,
    EndOfFile,
    EntryHeader,
    IndexUnit,
)

__all__ = ["DLedgerLogWriter", "DLedgerOptions"]

# DLedgerCommitLog parses Integer.parseInt(selfId.substring(1)): a letter, then a number
_SELF_ID = re.compile(r"[A-Za-z][0-9]{1,9}\Z")


@dataclass(frozen=True)
class DLedgerOptions:
    """How to lay out a DLedger store.

    * ``self_id``: the node id (``dLegerSelfId``), naming ``dledger-<self_id>/``.
    * ``pre_dledger``: how many records go to the old ``commitlog/`` before DLedger was switched on (0: none).
    * ``terms``: Raft index -> the term that starts there (a leader change); must rise with the index. The
      entries before the first key get term 1 (the first election).
    * ``index_file_size``: bytes per ``index/`` file; DLedger's default 32 x 5,242,880 (what a broker uses:
      DLedgerCommitLog does not set it). A multiple of 32.
    """

    self_id: str = "n0"
    pre_dledger: int = 0
    terms: Mapping[int, int] = field(default_factory=lambda: {0: 1})
    index_file_size: int = INDEX_FILE_SIZE

    def __post_init__(self) -> None:
        if not _SELF_ID.match(self.self_id):
            raise BadInput(f"DLedger self id: a letter and a number (as n0), not {self.self_id!r}")
        if self.pre_dledger < 0:
            raise BadInput(f"pre-DLedger record count: at least 0, not {self.pre_dledger}")
        if self.index_file_size < INDEX_UNIT_SIZE or self.index_file_size % INDEX_UNIT_SIZE:
            raise BadInput(f"DLedger index file size: a positive multiple of 32, not {self.index_file_size}")
        last_index, last_term = -1, 0
        for index, term in sorted(self.terms.items()):
            if index < 0 or term <= last_term:
                raise BadInput(f"DLedger terms: indexes >= 0 and terms rising with them, not {index}:{term} after "
                               f"{last_index}:{last_term}")
            last_index, last_term = index, term

    def term_at(self, index: int) -> int:
        return max((term for start, term in self.terms.items() if start <= index), default=1)

    @property
    def last_term(self) -> int:
        return max(self.terms.values(), default=1)


class DLedgerLogWriter:
    """A DLedger broker's log: see the module docstring."""

    def __init__(self, root: Path, segment_size: int, options: DLedgerOptions) -> None:
        self.options = options
        self.home = root / f"dledger-{options.self_id}"
        self._old = SegmentWriter(root / "commitlog", segment_size)
        self._segment_size = segment_size
        self._data: SegmentWriter | None = None
        self._index: SegmentWriter | None = None
        self._records = 0  # records reserved so far, both parts
        self._entries = 0  # Raft index of the next entry
        self._pos = 0  # the entry being written
        self.divided_commitlog_offset = -1

    def reserve(self, length: int) -> int:
        if self._records < self.options.pre_dledger:
            self._records += 1
            return self._old.reserve(length)
        data = self._switch()
        self._pos = data.reserve(ENTRY_HEADER_SIZE + length)
        self._records += 1
        return self._pos + ENTRY_HEADER_SIZE

    def write(self, record: bytes) -> None:
        if self._data is None:
            self._old.write(record)
            return
        index, term, size = self._entries, self.options.term_at(self._entries), ENTRY_HEADER_SIZE + len(record)
        header = EntryHeader.build(dict(magic=MAGIC_1, size=size, index=index, term=term, pos=self._pos, channel=0,
                                        chain_crc=0, body_crc=0, body_length=len(record)))
        self._data.write(header + record)
        assert self._index is not None
        self._index.reserve(INDEX_UNIT_SIZE)
        self._index.write(IndexUnit.build(dict(magic=MAGIC_1, pos=self._pos, size=size, index=index, term=term)))
        self._entries += 1

    @property
    def entries(self) -> int:
        """How many DLedger entries were written (the next entry's Raft index)."""
        return self._entries

    def _switch(self) -> SegmentWriter:
        """DLedger's first start: pad the last old segment with a BLANK; DLedger positions begin at its end."""
        if self._data is None:
            if self._old.segments:
                self._old.pad_to_end()
                self.divided_commitlog_offset = self._old.max_offset
            start = max(self.divided_commitlog_offset, 0)
            self._data = SegmentWriter(self.home / "data", self._segment_size, start=start,
                                       end_marker=lambda remaining: EndOfFile.build({"remaining": remaining}))
            self._index = SegmentWriter(self.home / "index", self.options.index_file_size, spare=0)
            (self.home / "data").mkdir(parents=True)
            (self.home / "index").mkdir()
            self._data.open_first()
            self._index.open_first()
        return self._data

    def close(self) -> None:
        """Flush, then the two properties files of a cleanly stopped leader (everything committed)."""
        self._switch()
        self._old.close()
        assert self._data is not None and self._index is not None
        self._data.close()
        self._index.close()
        end = self._entries - 1
        checkpoint = dict(zip(CHECKPOINT_KEYS_JAVA8, (end, end), strict=True))
        (self.home / "checkpoint").write_bytes(DLedgerCheckpoint.build(checkpoint))
        # the leader voted for itself in its term (MemberState.persistTerm: voteLeader, currTerm)
        currterm = {"voteLeader": self.options.self_id, "currTerm": self.options.last_term}
        (self.home / "currterm").write_bytes(CurrTerm.build(currterm))

    @property
    def segments(self) -> list[Path]:
        """The old commitlog segments, then the DLedger data files."""
        return list(self._old.segments) + (list(self._data.segments) if self._data else [])

    @property
    def max_offset(self) -> int:
        if self._data is not None and self._data.segments:
            return self._data.max_offset
        return self._old.max_offset
