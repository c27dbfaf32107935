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


@dataclass
class StoreDiff:
    first_divergence: int | None = None
    only_in_a: list[Range] = field(default_factory=list)
    only_in_b: list[Range] = field(default_factory=list)
    differing: list[Range] = field(default_factory=list)
    records: list[RecordDiff] = field(default_factory=list)
    queues: list[QueueDiff] = field(default_factory=list)
    files: list[FileDiff] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # what a limit left out: the answer is partial

    @property
    def identical(self) -> bool:
        return not (self.first_divergence is not None or self.only_in_a or self.only_in_b or self.differing
                    or self.records or self.queues or self.files)
