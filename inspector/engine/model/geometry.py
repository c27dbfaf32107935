"""Store geometry: sizes that are broker configuration, not file content (spec §3.1, §4.1, §5.1, §9.1)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from parsers.consumequeue import CQ_DEFAULT_FILE_SIZE
from parsers.indexfile import DEFAULT_ITEM_COUNT, DEFAULT_SLOT_COUNT

DEFAULT_SEGMENT_SIZE = 1 << 30  # mappedFileSizeCommitLog
DEFAULT_DELAY_LEVELS = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

_UNIT_MS = {"s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


@dataclass(frozen=True)
class Geometry:
    """The sizes a broker was configured with. ``None`` means: infer from the files, else the default."""

    segment_size: int = DEFAULT_SEGMENT_SIZE
    cq_file_size: int = CQ_DEFAULT_FILE_SIZE
    index_slots: int = DEFAULT_SLOT_COUNT
    index_items: int = DEFAULT_ITEM_COUNT
    delay_levels: str = DEFAULT_DELAY_LEVELS

    @property
    def cq_units_per_file(self) -> int:
        return self.cq_file_size // 20

    def delay_ms(self, level: int) -> int:
        """Delay of a 1-based level in ms; levels past the table are clamped to the last one."""
        levels = parse_delay_levels(self.delay_levels)
        if level <= 0:
            return 0
        return levels[min(level, len(levels)) - 1]

    @property
    def max_delay_level(self) -> int:
        return len(parse_delay_levels(self.delay_levels))


# A level's delay at most 2^62 ms (146 million years): the broker computes it as a Java long (Long.parseLong of
# the digits times the unit, which wraps silently past 2^63) and adds it to a store time, which must fit as well
MAX_DELAY_MS = 1 << 62
_LEVEL = re.compile(r"([0-9]{1,20})([smhd])", re.ASCII)
_SHOWN = 40  # characters of a bad level (or table) echoed in a message


def _shown(text: str) -> str:
    return repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}... ({len(text):,} characters)"


def parse_delay_levels(text: str) -> list[int]:
    """``ScheduleMessageService.parseDelayLevel``: '1s 5s 10s ... 2h' -> delays in ms. ValueError saying which
    level is wrong: each is a whole number of s, m, h or d, at most ``MAX_DELAY_MS`` (0s is one: the broker's
    parseDelayLevel multiplies and stores without a check, and such a level delivers at once); a table without a
    level (empty, blanks only) is refused: the broker would have no level to deliver at."""
    return list(_parsed_levels(text))


@functools.lru_cache(maxsize=8)
def _parsed_levels(text: str) -> tuple[int, ...]:
    # one parse per table: a broker.conf may hold a table of hundreds of thousands of levels (1 MiB), which the
    # config check, the geometry and the delay-table inference each ask for
    result = []
    parts = text.split()
    if not parts:
        raise ValueError(f"no delay level at all in {_shown(text)} (levels like '1s 5s 10s 30s 1m ... 2h')")
    for n, part in enumerate(parts, 1):
        match = _LEVEL.fullmatch(part)
        if not match:
            raise ValueError(f"bad delay level {_shown(part)} (level {n}): a whole number of s, m, h or d, "
                             "like 5s or 2h")
        ms = int(match.group(1)) * _UNIT_MS[match.group(2)]
        if not 0 <= ms <= MAX_DELAY_MS:
            raise ValueError(f"delay level {n} ({_shown(part)}) must be at most {MAX_DELAY_MS:,} ms "
                             "(2^62: the broker adds it to a store time as a Java long)")
        result.append(ms)
    return tuple(result)


def files_geometry(base: Geometry, found: dict[str, int | None], overrides: dict[str, int | str | None]) -> Geometry:
    """``base`` with what a store's own files show (``found``: segment_size, cq_file_size, index_slots, index_items;
    None where the files do not show it), then ``overrides`` (None: not given). Values only: the reader that
    looked at the files (``Store.geometry``) gathers them."""
    values = {"segment_size": base.segment_size, "cq_file_size": base.cq_file_size, "index_slots": base.index_slots,
              "index_items": base.index_items, "delay_levels": base.delay_levels}
    values.update({k: v for k, v in found.items() if v is not None})
    values.update({k: v for k, v in overrides.items() if v is not None})
    return Geometry(**values)
