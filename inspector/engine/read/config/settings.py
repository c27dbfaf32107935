"""Where each broker setting a reader needs came from: a flag, the broker's configuration file, the store's own
files (inferred), or the broker's default; and the delay-level table inferred from ``SCHEDULE_TOPIC_XXXX``.

A delayed message parks in ``SCHEDULE_TOPIC_XXXX`` queue ``level - 1`` with tagsCode = its store time + that
level's delay (spec §9.1, ``DefaultMessageStore.computeDeliverTimestamp``). So a few units of each queue give
each level's delay without the broker's configuration: the first and last few units of every level's queue,
a bounded sample whatever the store's size. Samples of one queue that disagree are a finding, and that level
keeps the default rather than a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.model.geometry import DEFAULT_DELAY_LEVELS, MAX_DELAY_MS, parse_delay_levels
from inspector.engine.model.records import Problem
from inspector.engine.model.systopics import SCHEDULE_TOPIC

SAMPLE_UNITS = 3  # units read at each end of a level's queue
# a queue id past this is no delay level (the broker's tables have tens): not stretched into a table of millions
MAX_LEVEL = 1000
SOURCES = ("flag", "broker.conf", "inferred", "default")
_UNITS = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))


class ScheduleQueues(Protocol):
    """What the delay-level inference reads: the queue ids, a queue, and the record a unit points at (the store's
    queues give all three)."""

    def queue_ids(self) -> list[tuple[str, int]]: ...

    def queue(self, topic: str, queue_id: int): ...

    def message_at(self, offset: int): ...


@dataclass(frozen=True)
class Setting:
    """One broker setting as the engine uses it, and where it came from (one of ``SOURCES``)."""

    name: str  # the broker's key, e.g. mappedFileSizeCommitLog
    value: str
    source: str
    detail: str = ""  # e.g. "broker.conf line 12", "3 units of SCHEDULE_TOPIC_XXXX"


@dataclass(frozen=True)
class DelayTable:
    """The messageDelayLevel a reader uses: ``text`` (parseable by ``parse_delay_levels``), each level's source,
    and the findings of the inference (disagreeing units, delays no table can spell)."""

    text: str
    sources: tuple[str, ...]  # per level, 1-based level = index + 1
    source: str  # of the table as a whole: "inferred" when any level was
    problems: tuple[Problem, ...] = ()
    detail: str = ""


def delay_text(ms: int) -> str | None:
    """A delay in the broker's notation (``90s``, ``2m``, ``1h``): the largest unit that divides it; None when
    none does (not a whole second) or it is not positive: no messageDelayLevel spells it."""
    if not 0 < ms <= MAX_DELAY_MS:  # what parse_delay_levels takes back
        return None
    for unit, size in _UNITS:
        if ms % size == 0:
            return f"{ms // size}{unit}"
    return None


def _sample_offsets(low: int, high: int) -> list[int]:
    """The first and last ``SAMPLE_UNITS`` queue offsets of [low, high)."""
    return sorted({*range(low, min(high, low + SAMPLE_UNITS)), *range(max(low, high - SAMPLE_UNITS), high)})


def _queue_samples(queues: ScheduleQueues, queue_id: int) -> list[tuple[int, str, int]]:
    """(delay ms, unit file, unit position) of the sampled units of one level's queue."""
    samples = []
    try:
        queue = queues.queue(SCHEDULE_TOPIC, queue_id)
        info = queue.info()
    except StoreError:
        return []
    for queue_offset in _sample_offsets(info.min_offset, info.max_offset):
        try:
            unit = queue.unit(queue_offset)
            if unit.is_pre_blank:
                continue
            msg = queues.message_at(unit.physical_offset)
        except StoreError:
            continue  # an unreadable unit or record is verify's finding, not the inference's
        if msg.topic != SCHEDULE_TOPIC or msg.queue_id != queue_id:
            continue  # a unit pointing at another record: verify says so
        samples.append((unit.tags_code - msg.store_timestamp, unit.file, unit.position))
    return samples


def infer_delay_levels(queues: ScheduleQueues, base: str = DEFAULT_DELAY_LEVELS) -> DelayTable:
    """The delay table the ``SCHEDULE_TOPIC_XXXX`` units of ``queues`` show, levels without units taken from ``base``.

    The table's length cannot be seen (the broker rewrites a DELAY past the last level to the last level, so no
    record asks for more than its queue): it is ``base``'s, longer when a queue of a higher level exists. Only
    levels with units are checked against it, and those are the inferred ones."""
    table = parse_delay_levels(base)
    sources = ["default"] * len(table)
    problems: list[Problem] = []
    levels = sorted(q for t, q in queues.queue_ids() if t == SCHEDULE_TOPIC and q >= 0)
    units = 0
    for queue_id in levels:
        level = queue_id + 1
        if level > MAX_LEVEL:
            problems.append(Problem(f"consumequeue/{SCHEDULE_TOPIC}/{queue_id}", 0, f"queue {queue_id} would be delay "
                                    f"level {level}, past any delay table ({MAX_LEVEL} levels at most here): not "
                                    "inferred", "delay-level-unlikely", "warning"))
            continue
        samples = _queue_samples(queues, queue_id)
        if not samples:
            continue
        delays = sorted({d for d, _, _ in samples})
        first_file, first_position = samples[0][1], samples[0][2]
        if len(delays) > 1:
            shown = ", ".join(f"{d} ms at {f} @ {p}" for d, f, p in samples)
            problems.append(Problem(first_file, first_position, f"the sampled units of delay level {level} show "
                                    f"different delays ({shown}): level {level} not inferred, the default's "
                                    "delay is used", "delay-level-conflict", "warning"))
            continue
        if delay_text(delays[0]) is None:
            problems.append(Problem(first_file, first_position, f"the units of delay level {level} show a delay "
                                    f"of {delays[0]} ms, which no messageDelayLevel can spell (whole seconds > 0):"
                                    " level not inferred", "delay-level-unspellable", "warning"))
            continue
        while len(table) < level:  # a longer table than the default: levels in between keep the last delay
            table.append(table[-1])
            sources.append("default")
        table[level - 1], sources[level - 1] = delays[0], "inferred"
        units += len(samples)
    text = " ".join(delay_text(ms) or "1s" for ms in table)
    inferred = sources.count("inferred")
    which = [str(i + 1) for i, source in enumerate(sources) if source == "inferred"]
    rest = "" if inferred == len(sources) else "; the others: the default"
    detail = (f"level{'s' if inferred > 1 else ''} {', '.join(which)} from {units} unit(s) of {SCHEDULE_TOPIC}{rest}"
              if inferred else f"no {SCHEDULE_TOPIC} unit to infer from" if not levels else "")
    return DelayTable(text, tuple(sources), "inferred" if inferred else "default", tuple(problems), detail)


def given_delay_table(text: str, source: str, detail: str = "") -> DelayTable:
    """A table given by a flag or the broker's configuration (already checked)."""
    return DelayTable(text, (source,) * len(parse_delay_levels(text)), source, (), detail)


def commitlog_folders(root: Path, config: BrokerConfig | None) -> list[tuple[Path, str]] | None:
    """The folders holding the commitlog as (path, label), or None for the usual ``<root>/commitlog``.

    ``storePathCommitLog`` may name folders under the configured ``storePathRootDir``: those are taken under
    ``root`` instead (the store opened may be a copy elsewhere). Every folder must exist: a wrong path would
    otherwise read as an empty log."""
    paths = config.commitlog_paths() if config is not None else []
    if not paths:
        return None
    configured_root = Path(config.storePathRootDir) if config.storePathRootDir else None
    where = f"line {config.lines.get(commitlog_key(config), 0)}"
    folders = []
    for text in paths:
        try:
            path = Path(text).expanduser()
        except RuntimeError:  # "~user" of no known user: taken as written, and then not found below
            path = Path(text)
        if configured_root is not None and path.is_relative_to(configured_root) and path != configured_root:
            path = root / path.relative_to(configured_root)
        if not path.is_dir():
            raise BadInput(f"{where}: commitlog folder {text} is not a directory (looked for {path})", config.file)
        try:
            label = str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            label = str(path.resolve())
        folders.append((path, label))
    return folders


def commitlog_key(config: BrokerConfig) -> str:
    """The broker.conf key that placed the commitlog (to name its line)."""
    return "storePathCommitLog" if config.storePathCommitLog else "readOnlyCommitLogStorePaths"


def size_settings(flags: dict[str, int | None], config: BrokerConfig | None,
                  inferred: dict[str, int], values: dict[str, int]) -> list[Setting]:
    """A Setting for each geometry size: ``values`` (name -> value used), given by a flag, the file, the files
    of the store (``inferred``), or the default."""
    from inspector.engine.model.broker_config import SIZE_KEYS

    rows = []
    for key, (name, _) in SIZE_KEYS.items():
        if flags.get(name) is not None:
            source, detail = "flag", ""
        elif config is not None and getattr(config, key) is not None:
            source, detail = "broker.conf", f"{config.file} line {config.lines.get(key)}"
        elif name in inferred:
            source, detail = "inferred", "from the store's files"
        else:
            source, detail = "default", ""
        rows.append(Setting(key, str(values[name]), source, detail))
    return rows


def path_settings(root: Path, folders: str, config: BrokerConfig | None) -> list[Setting]:
    """storePathRootDir and storePathCommitLog as opened (``folders``: the commitlog's directory label)."""
    if config is not None and config.commitlog_paths():
        key = commitlog_key(config)
        commitlog = Setting("storePathCommitLog", folders, "broker.conf", f"{config.file} line {config.lines.get(key)}")
    else:
        commitlog = Setting("storePathCommitLog", folders, "default", "<root>/commitlog")
    return [Setting("storePathRootDir", str(root), "flag", "the STORE argument"), commitlog]


def other_settings(config: BrokerConfig | None) -> list[Setting]:
    """The other settings a broker.conf gives (LMQ, store type, timers, DLedger, role), as the file says."""
    if config is None:
        return []
    keys = ("enableLmq", "storeType", "timerWheelEnable", "timerPrecisionMs", "mappedFileSizeTimerLog",
            "timerMaxDelaySec", "enableDLegerCommitLog", "brokerRole")
    return [Setting(key, str(getattr(config, key)).lower() if isinstance(getattr(config, key), bool)
                    else str(getattr(config, key)), "broker.conf", f"{config.file} line {config.lines.get(key)}")
            for key in keys if getattr(config, key) is not None]


def delay_setting(table: DelayTable) -> Setting:
    return Setting("messageDelayLevel", table.text, table.source, table.detail)


def settings_view(rows: Sequence[Setting]) -> list[dict]:
    """Rows as plain dicts (JSON, the web)."""
    return [{"name": r.name, "value": r.value, "source": r.source, "detail": r.detail} for r in rows]
