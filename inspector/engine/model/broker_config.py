"""The broker's configuration file (``broker.conf``, passed to ``mqbroker -c``): the settings that shape a store.

``BrokerStartup`` reads the file with ``java.util.Properties.load(InputStream)`` (ISO-8859-1) and copies each
key onto ``MessageStoreConfig`` / ``BrokerConfig`` by setter name (``MixAll.properties2Object``). So the syntax
here is the Properties one: ``key=value``, ``key: value`` or ``key value``; ``#`` and ``!`` comment lines; a
line ending in an odd number of backslashes continues on the next (its leading blanks dropped); escapes
``\\t \\n \\r \\f \\uXXXX`` and ``\\x`` for any other x. Unknown keys are kept and ignored: brokers have hundreds.

A known key whose value the broker could not use (``mappedFileSizeCommitLog=1g``, a bad delay level) is refused
with the file and line: the broker would ignore it silently (``properties2Object`` swallows the
``NumberFormatException``) or refuse to start, and either way guessing here would give wrong answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.model.arguments import (
    CQ_FILE_SIZE,
    INDEX_ITEMS,
    INDEX_SLOTS,
    SEGMENT_SIZE,
    TIMER_LOG_SIZE,
    TIMER_MAX_DELAY,
    TIMER_PRECISION,
    ArgumentKind,
    parse_integer,
)
from inspector.engine.model.errors import BadInput
from inspector.engine.model.files import read_regular
from inspector.engine.model.geometry import parse_delay_levels

# the store file sizes in broker.conf, with the argument kinds the command line holds them to
SIZE_KEYS: dict[str, tuple[str, ArgumentKind]] = {
    "mappedFileSizeCommitLog": ("segment_size", SEGMENT_SIZE),
    "mappedFileSizeConsumeQueue": ("cq_file_size", CQ_FILE_SIZE),
    "maxHashSlotNum": ("index_slots", INDEX_SLOTS),
    "maxIndexNum": ("index_items", INDEX_ITEMS),
}
_INT_KEYS = {"timerPrecisionMs": TIMER_PRECISION, "mappedFileSizeTimerLog": TIMER_LOG_SIZE,
             "timerMaxDelaySec": TIMER_MAX_DELAY}
_BOOL_KEYS = ("enableLmq", "timerWheelEnable", "enableDLegerCommitLog")
BROKER_ROLES = ("ASYNC_MASTER", "SYNC_MASTER", "SLAVE")
STORE_TYPES = ("default", "defaultRocksDB")
# MessageStoreConfig.MULTI_PATH_SPLITTER: System.getProperty("rocketmq.broker.multiPathSplitter", ",")
MULTI_PATH_SPLITTER = ","


@dataclass(frozen=True)
class BrokerConfig:
    """What a broker.conf says about the store. ``None``: the file does not set it (the broker's default holds).

    ``lines`` maps each key the file sets to its line number, so a front end can say where a value came from."""

    file: str
    storePathRootDir: str | None = None
    storePathCommitLog: str | None = None
    readOnlyCommitLogStorePaths: str | None = None
    mappedFileSizeCommitLog: int | None = None
    mappedFileSizeConsumeQueue: int | None = None
    maxHashSlotNum: int | None = None
    maxIndexNum: int | None = None
    messageDelayLevel: str | None = None
    enableLmq: bool | None = None
    storeType: str | None = None
    timerWheelEnable: bool | None = None
    timerPrecisionMs: int | None = None
    mappedFileSizeTimerLog: int | None = None
    timerMaxDelaySec: int | None = None
    enableDLegerCommitLog: bool | None = None
    brokerRole: str | None = None
    properties: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    lines: dict[str, int] = field(default_factory=dict, hash=False, compare=False)

    def geometry_values(self) -> dict[str, int | str]:
        """The Geometry fields this file sets (``segment_size``, ..., ``delay_levels``)."""
        values: dict[str, int | str] = {}
        for key, (name, _) in SIZE_KEYS.items():
            if getattr(self, key) is not None:
                values[name] = getattr(self, key)
        if self.messageDelayLevel is not None:
            values["delay_levels"] = self.messageDelayLevel
        return values

    def commitlog_paths(self) -> list[str]:
        """``storePathCommitLog`` split as ``MultiPathMappedFileQueue`` does, then the read-only paths it also
        loads segments from (``readOnlyCommitLogStorePaths``). Empty when the file sets neither."""
        paths = []
        for text in (self.storePathCommitLog, self.readOnlyCommitLogStorePaths):
            if text:
                paths += [p.strip() for p in text.split(MULTI_PATH_SPLITTER) if p.strip()]
        return paths


def _logical_lines(text: str):
    """(first natural line number, logical line) as ``Properties.LineReader`` joins them."""
    natural = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    i = 0
    while i < len(natural):
        number, line = i + 1, natural[i].lstrip(" \t\f")
        i += 1
        if not line or line[0] in "#!":
            continue  # a comment ending in a backslash does not continue
        while _continues(line) and i < len(natural):
            line = line[:-1] + natural[i].lstrip(" \t\f")
            i += 1
        if _continues(line):
            line = line[:-1]  # a continuation at the end of the file ends the line
        yield number, line


def _continues(line: str) -> bool:
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _unescape(text: str, where: str) -> str:
    """``Properties.loadConvert``: backslash escapes; a bad ``\\uXXXX`` is the one thing Java refuses."""
    if "\\" not in text:
        return text  # nothing to convert (and a 1 MiB value is not walked character by character)
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        i += 1
        if ch != "\\" or i >= len(text):
            out.append(ch)
            continue
        ch = text[i]
        i += 1
        if ch == "u":
            digits = text[i:i + 4]
            if len(digits) < 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                bad = "\\u" + digits
                raise BadInput(f"{where}: malformed \\uxxxx escape {bad!r}")
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(ch, ch))
    return "".join(out)


def _split_key_value(line: str) -> tuple[str, str]:
    """The key ends at the first unescaped ``=``, ``:`` or blank; then blanks, one ``=`` or ``:``, blanks."""
    i, escaped = 0, False
    while i < len(line):
        ch = line[i]
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch in "=: \t\f":
            break
        i += 1
    key, rest = line[:i], line[i:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def parse_properties(text: str, file: str) -> tuple[dict[str, str], dict[str, int]]:
    """Key -> value as ``java.util.Properties.load`` reads ``text`` (the last one wins), and key -> line."""
    values: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, line in _logical_lines(text):
        where = f"line {number}"
        key, value = _split_key_value(line)
        key, value = _unescape(key, where), _unescape(value, where)
        values[key], lines[key] = value, number
    return values, lines


def _typed(key: str, value: str, where: str):
    """The value a known key holds, or BadInput naming the line."""
    text = value.strip()  # Integer.parseInt would refuse a trailing blank, and the broker then ignore the line
    if key in SIZE_KEYS or key in _INT_KEYS:
        kind = SIZE_KEYS[key][1] if key in SIZE_KEYS else _INT_KEYS[key]
        number = parse_integer(text, decimal_only=True, grouped=False)  # Long.parseLong: plain decimal
        if number is None or not kind.fits(number):
            raise BadInput(f"{where}: {kind.message(key, text, decimal_only=True)}")
        return number
    if key in _BOOL_KEYS:
        if text.lower() not in ("true", "false"):
            raise BadInput(f"{where}: {key} must be true or false, not {text!r}")
        return text.lower() == "true"
    if key == "messageDelayLevel":
        try:
            parse_delay_levels(text)  # an empty table, a level past 2^62 ms refused too
        except ValueError as e:
            raise BadInput(f"{where}: messageDelayLevel: {e}") from None
        return text
    if key == "brokerRole" and text not in BROKER_ROLES:
        raise BadInput(f"{where}: brokerRole must be one of {', '.join(BROKER_ROLES)}, not {text!r}")
    if key == "storeType" and text not in STORE_TYPES:
        raise BadInput(f"{where}: storeType must be one of {', '.join(STORE_TYPES)}, not {text!r}")
    if key.startswith("storePath") or key == "readOnlyCommitLogStorePaths":
        if not text:
            raise BadInput(f"{where}: {key} is empty")
    return text


_FIELDS = ("storePathRootDir", "storePathCommitLog", "readOnlyCommitLogStorePaths", *SIZE_KEYS, *_INT_KEYS,
           "messageDelayLevel", *_BOOL_KEYS, "storeType", "brokerRole")


def parse_broker_config(text: str, file: str) -> BrokerConfig:
    """A ``BrokerConfig`` from the text of ``file`` (named in every error, with the line)."""
    try:
        values, lines = parse_properties(text, file)
        typed = {key: _typed(key, values[key], f"line {lines[key]}") for key in _FIELDS if key in values}
    except BadInput as e:
        raise BadInput(e.reason, file) from None
    return BrokerConfig(file=file, properties=values, lines=lines, **typed)


# a broker.conf sets a few dozen keys (a few KiB with its comments); a larger file is no broker.conf, and one
# 50 MB line would cost ~700 MB to split and unescape
MAX_BROKER_CONFIG_BYTES = 1 << 20


def load_broker_config(path: str | Path) -> BrokerConfig:
    """Read a broker.conf (ISO-8859-1, as ``Properties.load(InputStream)``) through the guarded open: a regular
    file of at most ``MAX_BROKER_CONFIG_BYTES`` (a FIFO, ``/dev/zero`` or a directory is refused, never read);
    exit-2 errors name the file."""
    try:
        raw = read_regular(path, MAX_BROKER_CONFIG_BYTES, "a broker.conf")
    except OSError as e:
        raise BadInput(f"cannot read the broker configuration: {e.strerror or e}", str(path)) from None
    return parse_broker_config(raw.decode("latin-1"), str(path))
