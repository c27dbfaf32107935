"""The fastjson files under ``config/`` with RocketMQ's ``.bak`` fallback (spec §7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.model.bounds import INT64_MAX, INT64_MIN, decimal_name, int64_problem
from inspector.engine.model.files import UnfitFile, read_regular
from inspector.engine.model.multidispatch import is_lmq
from inspector.engine.model.records import Problem
from parsers.fastjson import FastjsonError, loads, split_topic_group

KNOWN_FILES = (
    "topics.json",
    "consumerOffset.json",
    "subscriptionGroup.json",
    "delayOffset.json",
    "consumerFilter.json",
    "timermetrics",  # 5.x TimerMetrics: fastjson without a suffix (spec part 2 §18)
)
MAX_CONFIG_BYTES = 64 << 20  # config files are small; refuse to slurp something absurd


@dataclass(frozen=True)
class ConfigFile:
    name: str
    file: str | None  # the file actually used (name or name.bak), None when neither could be read
    used_backup: bool
    value: object


@dataclass
class ConfigSet:
    files: dict[str, ConfigFile] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # topics from a RocksDB config database when the broker keeps them there (rocksdb_config.apply_topic_database)
    topic_table: dict[str, dict] | None = None
    topics_source: str = "config/topics.json"

    def findings(self) -> list[Problem]:
        """Every config finding: files that could not be read (``problems``), then what the lenient accessors
        leave out (:func:`shape_problems`)."""
        return [*self.problems, *shape_problems(self)]

    def value(self, name: str) -> dict:
        cf = self.files.get(name)
        return cf.value if cf is not None and isinstance(cf.value, dict) else {}

    @property
    def topics(self) -> dict[str, dict]:
        """topic -> TopicConfig, from ``topics_source`` (topics.json, or the broker's RocksDB database)."""
        if self.topic_table is not None:
            return self.topic_table
        table = self.value("topics.json").get("topicConfigTable", {})
        return table if isinstance(table, dict) else {}

    @property
    def consumer_offsets(self) -> dict[tuple[str, str], dict[int, int]]:
        """(topic, group) -> queue id -> next offset to consume."""
        return offset_table(self.value("consumerOffset.json"))

    @property
    def lmq_consumer_offsets(self) -> dict[tuple[str, str], dict[int, int]]:
        """``lmqConsumerOffset.json`` (spec part 2 §17): its ``offsetTable`` and its ``lmqOffsetTable``
        (``%LMQ%name@group`` -> offset: an LMQ has one queue, id 0), as one table."""
        value = self.value("lmqConsumerOffset.json")
        result = offset_table(value)
        lmq = value.get("lmqOffsetTable", {})
        for key, offset in (lmq.items() if isinstance(lmq, dict) else ()):
            if _lmq_entry_ok(key, offset):
                result.setdefault(split_topic_group(key), {})[0] = offset
        return result

    @property
    def delay_offsets(self) -> dict[int, int]:
        table = self.value("delayOffset.json").get("offsetTable", {})
        if not isinstance(table, dict):
            return {}
        return {k: v for k, v in ((_as_int(k), v) for k, v in table.items())
                if k is not None and _is_long(v)}


def offset_table(value: dict) -> dict[tuple[str, str], dict[int, int]]:
    """(topic, group) -> queue id -> next offset to consume, from a file's ``offsetTable`` (entries that are no
    topic@group with Java longs left out: :func:`entry_problems` names them)."""
    table = value.get("offsetTable", {})
    result: dict[tuple[str, str], dict[int, int]] = {}
    if not isinstance(table, dict):
        return result
    for key, queues in table.items():
        if not isinstance(key, str) or "@" not in key or not isinstance(queues, dict):
            continue
        result[split_topic_group(key)] = {q: o for q, o in ((_as_int(q), o) for q, o in queues.items())
                                          if q is not None and _is_long(o)}
    return result


def _lmq_entry_ok(key: object, offset: object) -> bool:
    """An ``lmqOffsetTable`` entry the broker reads: ``topic@group`` of an LMQ group (``LmqConsumerOffsetManager``
    looks there only when ``MixAll.isLmq(group)``; any other group's offset is in ``offsetTable``), a Java long."""
    return (isinstance(key, str) and "@" in key and is_lmq(split_topic_group(key)[1]) and _is_long(offset))


def _as_int(key: object) -> int | None:
    """A map key that should be an integer (fastjson writes them bare; a quoted one is accepted too), within
    the signed 64-bit range; None otherwise (reported by :func:`entry_problems`)."""
    if type(key) is int and INT64_MIN <= key <= INT64_MAX:
        return key  # the usual bare key, at once: a 16,000-queue offsets file has 16,000 of them, read twice
    if type(key) is str and len(key) <= 18 and key.isdigit() and key.isascii():
        return int(key)  # a quoted one (json.dumps writes them so), as fast: 18 digits are within the range
    if isinstance(key, str):
        key = int(key) if len(key) <= 20 and decimal_name(key.removeprefix("-")) is not None else None
    if isinstance(key, int) and not isinstance(key, bool) and int64_problem(key, "") is None:
        return key
    return None


def _is_long(value: object) -> bool:
    if type(value) is int and INT64_MIN <= value <= INT64_MAX:
        return True  # the usual case, at once (as _as_int)
    return isinstance(value, int) and not isinstance(value, bool) and int64_problem(value, "") is None


def shape_problems(config: ConfigSet) -> list[Problem]:
    """What the accessors of ``config`` leave out, said: a file whose top level is not the object the broker
    writes (``[]``, ``null``, a string: its tables read as empty), offset-table entries that are no Java long.

    Apart from ``ConfigSet.problems`` (what could not be read at all): the accessors stay lenient, and
    ``ConfigSet.findings()`` gives both.
    """
    found = []
    for name, cf in sorted(config.files.items()):
        if cf.file is None:
            continue  # unreadable: already a bad-config finding
        if not isinstance(cf.value, dict):
            found.append(Problem(cf.file, 0, f"top level is {_kind(cf.value)}, not the object the broker writes: "
                                 "read as empty", "config-not-object"))
        else:
            found += entry_problems(name, cf.file, cf.value)
    return found


def entry_problems(name: str, rel: str, value: dict) -> list[Problem]:
    """Entries of an offset table that cannot be what the broker writes (a key or offset that is no Java long):
    each is left out of the table, so each is said."""
    if name not in ("consumerOffset.json", "lmqConsumerOffset.json", "delayOffset.json"):
        return []
    table = value.get("offsetTable", {})
    if not isinstance(table, dict):
        return [Problem(rel, 0, f"offsetTable is {_kind(table)}, not an object: ignored", "bad-config-entry")]
    found = _lmq_table_problems(rel, value) if name == "lmqConsumerOffset.json" else []
    for key, item in table.items():
        if name == "delayOffset.json":
            bad = [(key, item)]
        elif isinstance(key, str) and "@" in key and isinstance(item, dict):
            bad = list(item.items())
        else:  # not "topic@group": {queue: offset}
            found.append(Problem(rel, 0, f"offsetTable entry {key!s:.60} is not topic@group with queue offsets: "
                                 "ignored", "bad-config-entry", "warning", entry=str(key)))
            continue
        found += [Problem(rel, 0, f"offsetTable {key!s:.60}: {k!s:.40}:{v!s:.40} is not a queue id and a 64-bit "
                          "offset: ignored", "bad-config-entry", "warning", entry=f"{key}/{k}")
                  for k, v in bad if _as_int(k) is None or not _is_long(v)]
    return found


def _lmq_table_problems(rel: str, value: dict) -> list[Problem]:
    """``lmqOffsetTable`` entries the broker never reads (see :func:`_lmq_entry_ok`), each said."""
    table = value.get("lmqOffsetTable", {})
    if not isinstance(table, dict):
        return [Problem(rel, 0, f"lmqOffsetTable is {_kind(table)}, not an object: ignored", "bad-config-entry")]
    return [Problem(rel, 0, f"lmqOffsetTable entry {key!s:.60}:{offset!s:.40} is not an LMQ group's topic@group "
                    "with a 64-bit offset: the broker never reads it, ignored", "bad-config-entry", "warning",
                    entry=str(key))
            for key, offset in table.items() if not _lmq_entry_ok(key, offset)]


def _kind(value: object) -> str:
    """What a JSON value is, for a message."""
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")


def _read(path: Path, rel: str) -> tuple[object | None, str | None]:
    """(value, None) or (None, why it failed)."""
    try:
        data = read_regular(path, MAX_CONFIG_BYTES, "a config file")
    except UnfitFile as e:  # the guarded read's own refusals: no regular file, too large
        return None, e.strerror
    except OSError as e:
        return None, f"cannot read: {e.strerror}"
    if not data.strip():
        return None, "file is empty"
    try:
        return loads(data), None
    except FastjsonError as e:
        return None, f"not valid fastjson: {e}"
    except RecursionError:
        return None, "nesting too deep"


def load_config(root: Path) -> ConfigSet:
    """Every ``config/*.json`` (and the known names), each from itself or its ``.bak`` as ConfigManager.load does."""
    base = root / "config"
    result = ConfigSet()
    if not base.is_dir():
        return result
    names = set(KNOWN_FILES)
    try:
        names |= {p.name for p in base.iterdir() if p.name.endswith(".json")}
    except OSError as e:
        result.problems.append(Problem("config", 0, f"cannot list: {e.strerror}", "unreadable-file"))
    for name in sorted(names):
        main, bak = base / name, base / f"{name}.bak"
        rel, rel_bak = f"config/{name}", f"config/{name}.bak"
        if not main.exists() and not bak.exists():
            continue
        value, why = _read(main, rel) if main.exists() else (None, "missing")
        if why is None:
            result.files[name] = ConfigFile(name, rel, False, value)
            if bak.exists():
                _, bak_why = _read(bak, rel_bak)
                if bak_why is not None:
                    result.problems.append(Problem(rel_bak, 0, bak_why, "bad-config-backup", "warning"))
            continue
        if main.exists():
            result.problems.append(Problem(rel, 0, why, "bad-config"))
        bak_value, bak_why = _read(bak, rel_bak) if bak.exists() else (None, "missing")
        if bak_why is None:
            result.files[name] = ConfigFile(name, rel_bak, True, bak_value)
            result.problems.append(
                Problem(rel, 0, f"using {rel_bak} instead (as the broker would)", "config-from-backup", "warning")
            )
        else:
            result.files[name] = ConfigFile(name, None, False, None)
            if bak.exists():
                result.problems.append(Problem(rel_bak, 0, bak_why, "bad-config-backup"))
    return result
