"""The hostile inputs of issue 35 ("Hostile input, third round"), item 7: what the third-round fuzzer does to a
copy of a pristine store, and the text it hands to ``write`` and ``--broker-config``.

A :class:`Hostile` names one damage: a special file (FIFO, a symlink to /dev/zero or /dev/urandom, a directory,
a symlink out of the store, a dangling or looping link) in place of any file of the store, or at a path a
broker may leave (``abort``, ``lock``, ``config/timermetrics``); an empty or all-zero file of any kind; a file
sparse-extended to 1 TiB or given a tail of written zeros; many empty files named as segments, queue files,
timer-log or index files; a folder or file named with control characters (topic, queue, DLedger member,
segment-like, index, config). The pristine stores are store_mutations.build_store's: the sample, the DLedger
sample, a timer, an LMQ and a batch-queue store (the RocksDB store's files get their own test in
test_fuzz_third_round.py).
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st
from store_mutations import T0

OUTSIDE = Path("/etc/hostname") if Path("/etc/hostname").is_file() else Path("/etc/passwd")
SPECIALS = ("fifo", "dev-zero", "dev-urandom", "directory", "outside", "dangling", "loop")
# where a broker may leave a file the pristine copy lacks
ABSENT = ("abort", "lock", "config/timermetrics", "config/topics.json", "config/consumerOffset.json")
# ESC]0;PWNED BEL ESC[2J (retitle the terminal, clear it), a carriage return over a line, bidi overrides, a C1
# CSI, DEL, a newline inside a name
CONTROL_NAMES = ("\x1b]0;PWNED\x07\x1b[2J", "a\rPWNED", "\u202etxt.exe\u202c", "x\x9b2J", "del\x7f", "two\nlines",
                 "tab\tbell\x07", "\x1b[31mred\x1b[0m")
NAME_PLACES = ("topic", "queue", "member", "segment", "index", "config", "timerlog")
MANY_PLACES = ("segment", "cq", "timerlog", "index", "batch-cq")
MANY_FILES = 2_000  # "20,000 empty files named as segments": the benchmark's size, a tenth of it here
ZERO_TAIL = 4 << 20  # written zeros after a file's end (the 1 GiB segment is the benchmark's case)
GIANT = 1 << 40  # a 1 TiB sparse extension: costs no disk
STORE_NAMES = ("sample", "dledger", "timer", "lmq", "batch")


def store_files(root: Path) -> list[str]:
    """Every regular file of a pristine store, in a stable order (the positions a special file can take)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name != "README.md")


@dataclass(frozen=True)
class Hostile:
    """``kind`` special | empty | zeros | giant | zero-tail | many | name; ``target`` the special file, the place
    of a name or of many files; ``pick`` which file or folder (mod their count); ``value`` which name."""

    store: str
    kind: str
    target: str = ""
    pick: int = 0
    value: int = 0

    def apply(self, root: Path, files: list[str]) -> str:
        """Damage the copy at ``root`` (``files``: its pristine files); returns what was done, for messages."""
        if self.kind == "special":
            rel = (files + list(ABSENT))[self.pick % (len(files) + len(ABSENT))]
            make_special(root / rel, self.target)
            return f"{rel} is a {self.target}"
        if self.kind == "many":
            return add_many(root, self.target, self.pick)
        if self.kind == "name":
            return rename_hostile(root, self.target, self.pick, CONTROL_NAMES[self.value % len(CONTROL_NAMES)])
        rel = files[self.pick % len(files)]
        path = root / rel
        if self.kind == "empty":
            path.write_bytes(b"")
        elif self.kind == "zeros":
            size = path.stat().st_size
            with open(path, "r+b") as f:  # written zeros (not a hole), the file's own length
                f.write(bytes(size))
        elif self.kind == "giant":
            os.truncate(path, GIANT)
        elif self.kind == "zero-tail":
            with open(path, "ab") as f:
                f.write(bytes(ZERO_TAIL))
        return f"{rel} {self.kind}"

    def __str__(self) -> str:
        return f"{self.store}/{self.kind}:{self.target}#{self.pick}={self.value}"


def make_special(path: Path, kind: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
        (path / "00000000000000000000").write_bytes(b"\x00" * 64)
    elif kind == "loop":
        path.symlink_to(path.name)
    else:
        path.symlink_to({"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom", "outside": str(OUTSIDE),
                         "dangling": str(path.parent / "no-such-file")}[kind])


def _first_dir(folder: Path, pick: int) -> Path | None:
    found = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return found[pick % len(found)] if found else None


def _data_folder(root: Path) -> Path:
    """Where the store's segments are: commitlog/, or a DLedger member's data/ when commitlog/ has none."""
    members = sorted(root.glob("dledger-*/data"))
    return members[0] if members else root / "commitlog"


def add_many(root: Path, place: str, pick: int) -> str:
    if place == "segment":
        folder, step, first = _data_folder(root), 64 << 10, 1 << 30
    elif place == "cq" or place == "batch-cq":
        topic = _first_dir(root / ("consumequeue" if place == "cq" else "batchconsumequeue"), pick)
        queue = _first_dir(topic, pick) if topic else None
        if queue is None:
            return f"no {place} folder"
        folder, step, first = queue, 800, 1 << 20
    elif place == "timerlog":
        folder, step, first = root / "timerlog", 52 * 3 + 16, 1 << 20
    else:
        folder, step, first = root / "index", 1000, 20_990_101_000_000_000
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(MANY_FILES):
        (folder / f"{first + k * step:020d}").touch()
    return f"{MANY_FILES} empty files in {folder.relative_to(root)}"


def rename_hostile(root: Path, place: str, pick: int, name: str) -> str:
    """A folder renamed, or a copy of a file added, under a name holding control characters."""
    if place == "topic" or place == "queue":
        source = _first_dir(root / "consumequeue", pick)
        if source is not None and place == "queue":
            source = _first_dir(source, pick)
        if source is None:
            return "no queue folder"
        source.rename(source.parent / name)
        return f"{source.relative_to(root)} renamed {name!r}"
    if place == "member":
        member = next(iter(sorted(root.glob("dledger-*"))), None)
        if member is None:  # a plain store: a member folder of that name appears beside it (copy of commitlog)
            shutil.copytree(root / "commitlog", root / f"dledger-{name}" / "data")
            return f"dledger-{name!r} added"
        member.rename(root / f"dledger-{name}")
        return f"{member.name} renamed dledger-{name!r}"
    folder = {"segment": _data_folder(root), "index": root / "index", "config": root / "config",
              "timerlog": root / "timerlog"}[place]
    sources = sorted(p for p in folder.glob("*") if p.is_file()) if folder.is_dir() else []
    target = folder / (f"{name}.json" if place == "config" else f"0000{name}")
    folder.mkdir(parents=True, exist_ok=True)
    if sources:
        shutil.copyfile(sources[pick % len(sources)], target)
    else:
        target.write_bytes(b"")
    return f"{target.relative_to(root)!s} added"


def hostiles(stores: tuple[str, ...]) -> st.SearchStrategy[Hostile]:
    store = st.sampled_from(stores)
    pick = st.integers(0, 1 << 10)
    return st.one_of(
        st.builds(Hostile, store, st.just("special"), st.sampled_from(SPECIALS), pick),
        st.builds(Hostile, store, st.sampled_from(("empty", "zeros", "giant", "zero-tail")), st.just(""), pick),
        st.builds(Hostile, store, st.just("many"), st.sampled_from(MANY_PLACES), pick),
        st.builds(Hostile, store, st.just("name"), st.sampled_from(NAME_PLACES), pick,
                  st.integers(0, len(CONTROL_NAMES) - 1)),
    )


# -- write's input and --broker-config --------------------------------------------------------------------------

I64 = 1 << 63
EXTREMES = (0, -1, 1, (1 << 31) - 1, -(1 << 31), (1 << 31), I64 - 1, -I64, I64, -I64 - 1, 10**30, -(10**30))
INT_FIELDS = ("queue_id", "store_timestamp", "born_timestamp", "flag", "reconsume_times", "delay_level",
              "deliver_ms", "real_queue_id", "prepared_transaction_offset", "half_ref")


@st.composite
def write_lines(draw) -> bytes:
    """One JSON Lines input for ``write``: valid messages with one hostile line among them."""
    shape = draw(st.sampled_from(("extreme", "digits", "nesting", "utf8", "long", "float", "type", "nul",
                                  "bytes")))
    good = json.dumps({"topic": "T", "body": "b", "store_timestamp": T0}).encode()
    if shape == "extreme":
        field = draw(st.sampled_from(INT_FIELDS))
        value = draw(st.one_of(st.sampled_from(EXTREMES), st.integers(-(1 << 70), 1 << 70)))
        bad = b'{"topic": "T", "body": "x", "%s": %s}' % (field.encode(), str(value).encode())
    elif shape == "digits":  # a number Python's int() refuses (4,300 digits) or takes its time over
        field = draw(st.sampled_from(INT_FIELDS))
        bad = b'{"topic": "T", "%s": %s}' % (field.encode(), b"9" * draw(st.integers(4000, 60_000)))
    elif shape == "nesting":
        depth = draw(st.integers(900, 120_000))
        bad = b'{"topic": "T", "properties": ' + b"[" * depth + b"]" * depth + b"}"
    elif shape == "utf8":  # invalid UTF-8 in a string, a key, or a lone surrogate escape
        bad = draw(st.sampled_from((b'{"topic": "T\xff", "body": "x"}', b'{"top\xc3ic": "T"}',
                                    b'{"topic": "T", "body": "\\ud800"}', b'{"topic": "\\udfff"}',
                                    b'{"topic": "T", "keys": ["\xed\xa0\x80"]}')))
    elif shape == "long":  # a huge line (CI: up to 2 MB; the 50 MB line is the broker-config case)
        bad = b'{"topic": "T", "body": "' + b"a" * draw(st.integers(1 << 16, 2 << 20)) + b'"}'
    elif shape == "float":
        field = draw(st.sampled_from(INT_FIELDS))
        bad = b'{"topic": "T", "%s": %s}' % (field.encode(), draw(st.sampled_from(
            (b"NaN", b"Infinity", b"-Infinity", b"1e308", b"1.5", b"-0.0", b"1e400"))))
    elif shape == "type":
        field = draw(st.sampled_from(INT_FIELDS + ("topic", "body", "keys", "properties", "batch", "lmq_queues",
                                                   "tags", "compression", "transaction", "born_host")))
        value = draw(st.sampled_from(("null", "true", '"7"', "[]", "{}", '[{"topic": "T"}]', '{"a": 1}', '""')))
        bad = b'{"topic": "T", "%s": %s}' % (field.encode(), value.encode())
    elif shape == "nul":
        bad = b'{"topic": "T\\u0000x", "body": "\x00"}'
    else:
        bad = draw(st.binary(max_size=4096))
    before = draw(st.integers(0, 3))
    return b"\n".join([good] * before + [bad] + [good])


BROKER_KEYS = ("mappedFileSizeCommitLog", "mappedFileSizeConsumeQueue", "maxHashSlotNum", "maxIndexNum",
               "timerPrecisionMs", "mappedFileSizeTimerLog", "timerMaxDelaySec", "messageDelayLevel",
               "storePathCommitLog", "storePathRootDir", "enableLmq", "enableDLegerCommitLog", "dLegerSelfId",
               "storeType", "brokerRole", "timerWheelEnable", "readOnlyCommitLogStorePaths")
DELAY_LEVELS = ("99999999999999999999d", "", " ", "1s 5s 99999999999999999999d", "0s", "-1s", "1x", "1" * 5000 + "s",
                "nans", "1e308s", "1s " * 10_000, "\x00", "1h 1d 1w", "９s")


@st.composite
def broker_configs(draw) -> bytes:
    """A broker.conf: random bytes, a long line, or one key with an extreme, empty or hostile value."""
    shape = draw(st.sampled_from(("bytes", "long", "key", "delay")))
    if shape == "bytes":
        return draw(st.binary(max_size=8192))
    if shape == "long":
        return b"messageDelayLevel=" + b"1s " * draw(st.integers(1 << 10, 1 << 19))
    if shape == "delay":
        return ("messageDelayLevel=" + draw(st.sampled_from(DELAY_LEVELS))).encode("latin-1", "replace")
    key = draw(st.sampled_from(BROKER_KEYS))
    value = draw(st.one_of(st.sampled_from([str(v) for v in EXTREMES] + ["", "x", "/dev/zero", "/", "..",
                                                                         "\x1b[2J", "true", "1" * 5000]),
                           st.text(max_size=40)))
    return f"{key}={value}\n".encode("latin-1", "replace")
