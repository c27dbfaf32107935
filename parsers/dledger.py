"""DLedger commitlog (spec part 2, §16): entry header, end-of-file marker, index unit, and the two Java
properties files ``checkpoint`` and ``currterm`` under ``<root>/dledger-<selfId>/``.

Checked against openmessaging/dledger tag dledger-all-0.3.1.2: ``DLedgerEntryCoder.encode`` / ``encodeIndex``,
``DLedgerEntry`` (HEADER_SIZE 44, BODY_OFFSET 48, POS_OFFSET 24), ``MmapFileList.preAppend`` (the -1 marker),
``DLedgerMmapFileStore.persistCheckPoint``, ``MemberState.persistTerm`` and ``IOUtils.properties2String``.
"""

from __future__ import annotations

import re

from construct import Adapter, Const, ConstructError, GreedyBytes, Int32sb, Int64sb, Struct, ValidationError

SchemaError = ConstructError  # what a parse here raises, by a name the engine may import (it imports no construct)

ENTRY_HEADER_SIZE = 48  # DLedgerEntry.BODY_OFFSET: the record starts here; wroteOffset = pos + 48
HEADER_SIZE_FIELD_MIN = 44  # DLedgerEntry.HEADER_SIZE: recovery wants size > 44
POS_OFFSET = 24  # DLedgerEntry.POS_OFFSET
MAGIC_1 = 1  # DLedgerMmapFileStore.MAGIC_1 = CURRENT_MAGIC in 0.3.1.2
# DLedgerEntryType (DLedger 0.4.0+; not in 0.3.1.2 or 0.3.2): NORMAL(1), NOOP(2), CONFIG_CHANGE(3), all valid
# in its recovery (DLedgerEntryType.isValid); 0.3.1.2's recovery refuses them (magic <= CURRENT_MAGIC)
MAGIC_NOOP = 2  # an entry with no body: a new leader's first entry ("commit index fast advanced")
MAGIC_CONFIG_CHANGE = 3  # a membership change (a TODO in DLedger's own source)
NEWER_MAGICS = {MAGIC_NOOP: "NOOP", MAGIC_CONFIG_CHANGE: "CONFIG_CHANGE"}
END_MAGIC = -1  # MmapFileList.BLANK_MAGIC_CODE
END_MIN_LENGTH = 8  # MmapFileList.MIN_BLANK_LEN: an entry is written only if 8 bytes stay free after it
INDEX_UNIT_SIZE = 32  # DLedgerMmapFileStore.INDEX_UNIT_SIZE
INDEX_FILE_SIZE = INDEX_UNIT_SIZE * 5 * 1024 * 1024  # DLedgerConfig.mappedFileSizeForEntryIndex: 167,772,160

EntryHeader = Struct(
    "magic" / Int32sb * "1 (MAGIC_1); 2 NOOP, 3 CONFIG_CHANGE (DLedger 0.4.0+); -1 here is the end-of-file marker",
    "size" / Int32sb * "whole entry: 48 + body length",
    "index" / Int64sb * "Raft index: 0 for the first entry, then consecutive",
    "term" / Int64sb * "leader term, never decreasing",
    "pos" / Int64sb * "absolute position of this entry; the record's PHYSICALOFFSET is pos + 48",
    "channel" / Int32sb * "0 (reserved)",
    "chain_crc" / Int32sb * "0 in 0.3.1.2",
    "body_crc" / Int32sb * "0 in 0.3.1.2",
    "body_length" / Int32sb * "length of the commitlog record that follows",
)
"""The 48 bytes before each record in ``dledger-<id>/data/`` files."""


def _fixed_layout(schema: Struct) -> tuple[str, dict[str, int]]:
    """A schema of fixed-width big-endian integers as the ``struct`` module's format and each field's offset:
    what the fast paths read (``struct.Struct``, numpy, the numba kernels), derived here so the schema stays
    the one declaration of the layout."""
    fmt, offsets, at = ">", {}, 0
    for sub in schema.subcons:
        field = sub
        while hasattr(field, "subcon"):  # "name" / Int64sb * "doc": Renamed around the FormatField
            field = field.subcon
        offsets[sub.name] = at
        fmt += field.fmtstr[1:]
        at += field.sizeof()
    return fmt, offsets


ENTRY_HEADER_FORMAT, ENTRY_AT = _fixed_layout(EntryHeader)
"""``struct`` format of :data:`EntryHeader` and ``{field: offset}`` (index at 8, term at 16, pos at 24, ...)."""

EndOfFile = Struct(
    "magic" / Const(END_MAGIC, Int32sb) * "-1: no entry fits; the next entry is in the next file",
    "remaining" / Int32sb * "bytes from this marker to the end of the file (zeros after these 8)",
)
"""What ``MmapFileList.preAppend`` writes where an entry + 8 bytes no longer fit."""

IndexUnit = Struct(
    "magic" / Int32sb,
    "pos" / Int64sb * "entry position in the data files",
    "size" / Int32sb * "entry size",
    "index" / Int64sb * "Raft index; the unit is at index x 32",
    "term" / Int64sb,
)
"""One 32-byte unit of ``dledger-<id>/index/`` (``DLedgerEntryCoder.encodeIndex``)."""

INDEX_UNIT_FORMAT, INDEX_UNIT_AT = _fixed_layout(IndexUnit)
if EntryHeader.sizeof() != ENTRY_HEADER_SIZE or IndexUnit.sizeof() != INDEX_UNIT_SIZE:
    raise ImportError("parsers.dledger: EntryHeader / IndexUnit no longer match their declared sizes")

_JAVA_LONG = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_LINE = re.compile(r"([^=\n]*)=([^\n]*)\n")


class JavaPropertiesText(Adapter):
    """The text ``IOUtils.properties2String`` writes: ``key=value\\n`` per entry, in the Properties table's
    iteration order, nothing escaped. Parses to a dict that keeps that order (so it builds the same bytes);
    any other text (comments, ``:`` separators, escapes, a line without ``=``, a repeated key) is refused: it
    is not what DLedger writes, though ``Properties.load`` might still read it."""

    def _decode(self, obj, context, path):
        try:
            text = bytes(obj).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValidationError(f"not UTF-8 at byte {e.start}", path=path) from None
        result: dict[str, str] = {}
        at = 0
        while at < len(text):
            line = _LINE.match(text, at)
            if line is None:
                raise ValidationError(f"not a key=value line at character {at}", path=path)
            key, value = line.group(1), line.group(2)
            if key in result:
                raise ValidationError(f"key {key!r} twice", path=path)
            result[key] = value
            at = line.end()
        return result

    def _encode(self, obj, context, path):
        for key, value in obj.items():
            if "=" in key or "\n" in key or "\n" in str(value):
                raise ValidationError(f"{key!r}: a key without '=' and newline, a value without newline", path=path)
        return "".join(f"{key}={value}\n" for key, value in obj.items()).encode("utf-8")


class _TypedProperties(Adapter):
    """Exactly the keys DLedger writes, longs where it writes longs (``Long.toString`` spelling)."""

    def __init__(self, subcon, longs: tuple[str, ...], strings: tuple[str, ...] = ()) -> None:
        super().__init__(subcon)
        self.longs, self.strings = longs, strings

    def _decode(self, obj, context, path):
        if set(obj) != set(self.longs) | set(self.strings):
            raise ValidationError(f"keys {sorted(obj)}, DLedger writes {sorted(self.longs + self.strings)}", path=path)
        result = {}
        for key, value in obj.items():
            if key in self.longs:
                # at most 20 characters (-9223372036854775808) before int(): Python refuses more than 4,300 digits
                if len(value) > 20 or not _JAVA_LONG.match(value) or not -(1 << 63) <= int(value) < 1 << 63:
                    raise ValidationError(f"{key}={value!r} is no Java long", path=path)
                result[key] = int(value)
            else:
                result[key] = value
        return result

    def _encode(self, obj, context, path):
        return {key: str(value) for key, value in obj.items()}


# Key order: Java 8's Properties is a Hashtable(11) iterated from the top bucket down, which gives the orders
# below (what 4.x brokers, run on Java 8, write); Java 9+ iterates its ConcurrentHashMap upwards and writes
# committedIndex before endIndex (currterm is voteLeader first on both). Both parse; the dict keeps the order.
CHECKPOINT_KEYS_JAVA8 = ("endIndex", "committedIndex")
CURRTERM_KEYS = ("voteLeader", "currTerm")

PropertiesText = JavaPropertiesText(GreedyBytes)
"""A whole properties file as ``IOUtils.string2File`` leaves it (also its ``.bak``: the previous content)."""

DLedgerCheckpoint = _TypedProperties(PropertiesText, longs=CHECKPOINT_KEYS_JAVA8)
"""``dledger-<id>/checkpoint``: ``{"endIndex": n, "committedIndex": n}`` (``persistCheckPoint``)."""

CurrTerm = _TypedProperties(PropertiesText, longs=("currTerm",), strings=("voteLeader",))
"""``dledger-<id>/currterm``: ``{"voteLeader": "n0" or "", "currTerm": n}`` (``MemberState.persistTerm``)."""

