"""The diff of two stores as one record with sections (what the CLI, TUI and web show)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Range:
    """Bytes [start, end) of the log: present in one store only, or differing in both."""

    start: int
    end: int


@dataclass(frozen=True)
class RecordDiff:
    """A record at one physical offset whose bytes differ, and the decoded fields that differ."""

    offset: int
    fields: tuple[str, ...]
    note: str = ""  # why no field could be named (a record that does not decode on one side)


@dataclass(frozen=True)
class QueueDiff:
    topic: str
    queue_id: int
    min_a: int | None
    max_a: int | None
    min_b: int | None
    max_b: int | None
    first_differing_unit: int | None


@dataclass(frozen=True)
class FileDiff:
    """A config or checkpoint file: a field present in one only, or with different values."""

    file: str
    field: str
    a: str | None
    b: str | None


@dataclass(frozen=True)
class IndexItemDiff:
    """An index item (keyHash -> phyOffset) one store's index files hold and the other's do not."""

    side: str  # "A" or "B": the store that holds it
    file: str
    phy_offset: int
    key_hash: int
    key: str  # the key the record at phy_offset was indexed under (TOPIC#KEY), or why it cannot be named


@dataclass(frozen=True)
class TermDiff:
    """Two DLedger members' logs by Raft index (both stores DLedger): each one's last index and term, the first
    index both hold with different terms (None: one history), and how many indexes only one holds."""

    member_a: str
    member_b: str
    last_index_a: int | None
    last_term_a: int | None
    last_index_b: int | None
    last_term_b: int | None
    diverges_at: int | None
    term_a: int | None  # the terms at diverges_at
    term_b: int | None
    only_in_a: int
    only_in_b: int

    @property
    def same(self) -> bool:
        return self.diverges_at is None and not self.only_in_a and not self.only_in_b


@dataclass
class StoreDiff:
    first_divergence: int | None = None
    only_in_a: list[Range] = field(default_factory=list)
    only_in_b: list[Range] = field(default_factory=list)
    differing: list[Range] = field(default_factory=list)
    records: list[RecordDiff] = field(default_factory=list)
    queues: list[QueueDiff] = field(default_factory=list)
    files: list[FileDiff] = field(default_factory=list)
    index_items: list[IndexItemDiff] = field(default_factory=list)  # at most --limit of them
    index_only_in_a: int = 0  # how many items only A's index files hold (all of them, listed or not)
    index_only_in_b: int = 0
    terms: TermDiff | None = None  # two DLedger stores only
    left_out: list[str] = field(default_factory=list)  # what a limit left out: the answer is partial

    @property
    def identical(self) -> bool:
        return not (self.first_divergence is not None or self.only_in_a or self.only_in_b or self.differing
                    or self.records or self.queues or self.files or self.index_only_in_a or self.index_only_in_b
                    or (self.terms is not None and not self.terms.same))
