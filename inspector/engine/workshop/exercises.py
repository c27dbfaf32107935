"""Exercises generated from a store, with a checker that explains the right answer.

``generate(store, seed, count)`` returns frozen :class:`Exercise` objects; ``exercise.check(text)`` returns a
:class:`CheckResult`. Every answer is computed by the engine from the store itself. The set of kinds is fixed
(see ``KINDS``); ``seed`` picks a different variant of each (another key, file, unit ...), deterministically.
Answers are read tolerantly: decimal or 0x-hex numbers, thousands separators, surrounding words, any case.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import random
import re
from dataclasses import dataclass

from inspector.engine.model.budget import Budget, Partial, budget_or_none
from inspector.engine.model.errors import BudgetExceeded, StoreError
from inspector.engine.model.records import Message
from inspector.engine.read.collisions import find_collisions
from inspector.engine.read.store import decode_id
from inspector.engine.workshop.tour import HALF_TOPIC, SCHEDULE_TOPIC
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.java import index_key, index_key_hash, java_string_hash

KINDS = (
    "key-offset", "key-slot", "decode-msgid", "index-items", "index-used-slots", "cq-queue-offset", "cq-points-at",
    "segment-end", "tags-code", "delay-tagscode", "transaction-commit", "collision-item", "id-kind", "cq-file-name",
)
# Candidates come from a bounded sample of the store, so generating takes the same time on a store of millions
# of messages as on a small one; the sample store fits inside every bound (its exercises are the complete set).
SCAN_MESSAGES = 2_000  # messages read to find candidates (from the start of the log)
SCAN_ENTRIES = 4 * SCAN_MESSAGES  # records of any kind walked for them (a damaged log may hold few messages)
SCAN_QUEUES = 64  # ordinary consume queues whose units are candidates
QUEUE_UNITS = 1_000  # units of one queue that are candidates (half from its start, half from its second file)
SYSTEM_UNITS = 1_000  # units of one system queue (delay levels, half messages) read
NONE_WORDS = {"none", "no", "nothing", "-", "rollback", "rolled back", "rolledback", "n/a", "null", "no commit"}
SYSTEM_PREFIXES = ("%RETRY%", "%DLQ%", "%LMQ%", "rmq_sys_", "RMQ_SYS_", "SCHEDULE_TOPIC", "TRANS_CHECK_MAX_TIME_TOPIC")


@dataclass(frozen=True)
class CheckResult:
    correct: bool
    explanation: str
    expected: str  # the canonical answer
    given: str


@dataclass(frozen=True)
class Exercise:
    """One question about the store. ``answer`` is the canonical answer text; ``check`` reads any answer.

    ``answer_type`` says how answers are read: "int", "duration" (ms), "host-offset" (ip, port, offset),
    "choice" (one of ``choices``) or "int-or-none". ``expected`` holds the normalised right answer;
    ``hints`` maps normalised wrong answers that show a known misreading to an explanation of it.
    """

    id: str
    number: int
    kind: str
    question: str
    answer: str
    explanation: str
    answer_type: str
    expected: tuple
    format_hint: str = ""
    hints: tuple[tuple[object, str], ...] = ()
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (canonical, accepted spellings) for "choice"
    command: str = ""  # an rmq-inspect command that finds the answer

    def check(self, answer_text: str) -> CheckResult:
        given = "" if answer_text is None else str(answer_text).strip()
        if not given:
            return CheckResult(False, f"No answer. The answer is {self.answer}. {self.explanation}", self.answer, given)
        value = _read(self, given)
        if value is _UNREADABLE:
            return CheckResult(False, f"Could not read {given!r} as {self.format_hint or 'an answer'}. The answer is "
                                      f"{self.answer}. {self.explanation}", self.answer, given)
        if value == self.expected:
            return CheckResult(True, f"Right: {self.answer}. {self.explanation}", self.answer, given)
        hint = next((h for wrong, h in self.hints if wrong == value), "")
        return CheckResult(False, f"Not quite: the answer is {self.answer}. " + (f"{hint} " if hint else "")
                           + self.explanation, self.answer, given)


def exercise_view(ex: Exercise, *, with_answer: bool = False) -> dict:
    """JSON-ready data of an exercise; the answer and explanation only when asked (a browser must not see them)."""
    view = {"id": ex.id, "number": ex.number, "kind": ex.kind, "question": ex.question, "format_hint": ex.format_hint,
            "answer_type": ex.answer_type}
    if with_answer:
        view.update(answer=ex.answer, explanation=ex.explanation, command=ex.command)
    return view


def result_view(result: CheckResult) -> dict:
    return dataclasses.asdict(result)


# -- reading answers -----------------------------------------------------------------------------------------------

_UNREADABLE = object()
_INT_TOKEN = re.compile(r"[-+]?0x[0-9a-f]+|[-+]?\d[\d,_]*\d|[-+]?\d")
_IPV4 = re.compile(r"\b(\d{1,3}(?:\.\d{1,3}){3})\b")
_IPV6 = re.compile(r"\[([0-9a-f:.]+)\]|\b([0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})\b")
_DURATION = re.compile(r"([-+]?\d+(?:\.\d+)?)\s*([a-z]*)")
_UNIT_MS = {
    **dict.fromkeys(("ms", "msec", "msecs", "millis", "millisecond", "milliseconds"), 1),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1000),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60_000),
    **dict.fromkeys(("h", "hour", "hours"), 3_600_000),
}


def parse_int(text: str, *, signed_width: int | None = None) -> int | None:
    """One integer in ``text``: decimal (``65,518``, ``65_518``), ``0x`` hex, or bare hex with a letter in it.

    ``signed_width`` (32 or 64) reads a hex value with the top bit set as two's complement.
    """
    t = text.strip().lower().rstrip(".")
    tokens = _INT_TOKEN.findall(t)
    if len(tokens) != 1:
        if not tokens and re.fullmatch(r"-?[0-9a-f]+", t) and re.search(r"[a-f]", t):
            tokens = ["0x" + t.lstrip("-")] if not t.startswith("-") else ["-0x" + t[1:]]
        else:
            return None
    token = tokens[0].replace(",", "").replace("_", "")
    is_hex = "0x" in token
    try:
        value = int(token, 16) if is_hex else int(token)
    except ValueError:
        return None
    if is_hex and signed_width and value >= 0:
        if signed_width == 64 and value >= 1 << 63 and value < 1 << 64:
            value -= 1 << 64
        elif value >= 1 << 31 and value < 1 << 32:
            value -= 1 << 32  # an int32 written as 8 hex digits
    return value


def parse_duration_ms(text: str, expected_ms: int | None = None) -> int | None:
    """A duration in ms: ``10000``, ``10000 ms``, ``10 s``, ``10s``, ``1 min 30 s``. A bare number that is not
    the expected ms but is the expected seconds is read as seconds."""
    t = text.strip().lower().replace(",", "").replace("_", "")
    parts = _DURATION.findall(t)
    if not parts:
        return None
    if len(parts) == 1 and not parts[0][1]:
        ms = float(parts[0][0])
        if expected_ms is not None and ms != expected_ms and ms * 1000 == expected_ms:
            ms *= 1000
        return round(ms)
    total = 0.0
    for number, unit in parts:
        if unit not in _UNIT_MS:
            return None
        total += float(number) * _UNIT_MS[unit]
    return round(total)


def parse_host_offset(text: str) -> tuple[str, int, int] | None:
    """(ip, port, offset) from text such as ``10.20.0.5:10911 56961`` or ``ip 10.20.0.5, port 10911, offset 0x1``."""
    t = text.strip().lower()
    ip = None
    m4 = _IPV4.search(t)
    if m4:
        ip, t = m4.group(1), t[: m4.start()] + " " + t[m4.end():]
    else:
        m6 = _IPV6.search(t)
        if m6:
            ip, t = m6.group(1) or m6.group(2), t[: m6.start()] + " " + t[m6.end():]
    if ip is None:
        return None
    try:
        ip = str(ipaddress.ip_address(ip))
    except ValueError:
        return None
    numbers = [n.replace(",", "").replace("_", "") for n in _INT_TOKEN.findall(t)]
    if len(numbers) != 2:
        return None
    try:
        port, offset = (int(n, 16) if "0x" in n else int(n) for n in numbers)
    except ValueError:
        return None
    return ip, abs(port), abs(offset)


def _norm_text(text: str) -> str:
    return " ".join(text.strip().strip("'\"`").split()).lower()


def _read(ex: Exercise, given: str):
    if not given:
        return _UNREADABLE
    kind = ex.answer_type
    if kind == "int":
        width = 64 if ex.kind in ("tags-code",) else None
        v = parse_int(given, signed_width=width)
        return _UNREADABLE if v is None else (v,)
    if kind == "int-or-none":
        if _norm_text(given) in NONE_WORDS:
            return ("none",)
        v = parse_int(given)
        return _UNREADABLE if v is None else (v,)
    if kind == "duration":
        v = parse_duration_ms(given, ex.expected[0] if ex.expected else None)
        return _UNREADABLE if v is None else (v,)
    if kind == "host-offset":
        v = parse_host_offset(given)
        return _UNREADABLE if v is None else v
    if kind == "choice":
        exact = " ".join(given.strip().strip("'\"`").split())
        low = exact.lower()
        for hits in ({c for c, sp in ex.choices if exact in sp},
                     {c for c, sp in ex.choices for s in sp if s.lower() == low},
                     # looser: the answer contains exactly one choice's distinctive spelling
                     {c for c, sp in ex.choices for s in sp if len(s) > 3 and s.lower() in low}):
            if len(hits) == 1:
                return (hits.pop(),)
        return _UNREADABLE
    raise ValueError(f"unknown answer type {kind}")


# -- facts gathered once per generate() -----------------------------------------------------------------------------


def _is_system(topic: str) -> bool:
    return topic.startswith(SYSTEM_PREFIXES)


class _Facts:
    def __init__(self, store, budget: Budget):
        self.store = store
        self.budget = budget
        self.messages: list[Message] = []
        for n, entry in enumerate(store.entries(check_crc=False)):
            if n >= SCAN_ENTRIES:
                break
            if n % 256 == 255:
                budget.check(f"reading {n + 1} records")
            if isinstance(entry, Message):
                self.messages.append(entry)
                if len(self.messages) >= SCAN_MESSAGES:
                    break
        self.keys: dict[tuple[str, str], list[int]] = {}
        for m in self.messages:
            for k in m.keys:
                self.keys.setdefault((m.topic, k), []).append(m.physical_offset)

    def cmd(self, *args: str) -> str:
        return " ".join(("rmq-inspect", args[0], str(self.store.root), *args[1:]))


def _pick(candidates: list, kind: str, seed: int, round_: int = 0):
    """The variant for ``seed``: a fixed shuffle of the candidates (per kind), then the seed-th one."""
    if not candidates:
        return None
    order = list(candidates)
    random.Random(f"rmq-inspect/{kind}").shuffle(order)
    return order[(seed + round_ * 7) % len(order)]


class Unavailable(Exception):
    pass


def generate(store, seed: int = 0, count: int = 12, *, budget: Budget | None = None) -> list[Exercise]:
    """``count`` exercises, kinds in ``KINDS`` order (repeated with other variants when count exceeds them).

    Kinds the store has no case for are left out. Deterministic for a given store and seed. With a ``budget``
    that runs out the result (a :class:`~inspector.engine.model.budget.Partial` list) stops early and says so in
    ``truncated``; the exercises it holds are the first ones of the complete set, same ids and questions, so an
    answer to one of them checks the same either way.
    """
    stop = budget_or_none(budget)
    result: Partial = Partial()
    try:
        facts = _Facts(store, stop)
    except BudgetExceeded as e:
        result.truncated = str(e)
        return result
    kinds = list(KINDS)
    round_ = 0
    while kinds and len(result) < count:
        for kind in list(kinds):
            if len(result) >= count:
                break
            try:
                stop.check(f"{len(result)} exercise(s)")
                built = _BUILDERS[kind](facts, seed, round_)
            except BudgetExceeded:
                result.truncated = stop.note(f"{len(result)} of {count} exercises")
                return result
            except (Unavailable, StoreError):
                kinds.remove(kind)  # the store has no case for it
                continue
            number = len(result) + 1
            result.append(dataclasses.replace(built, id=f"{number:02d}-{kind}", number=number, kind=kind))
        round_ += 1
    return result


def _ex(**kw) -> Exercise:
    kw.setdefault("id", "")
    kw.setdefault("number", 0)
    kw.setdefault("kind", "")
    return Exercise(**kw)


INT_HINT = "a number (decimal, or hex with 0x)"


# -- the kinds -------------------------------------------------------------------------------------------------------


def _key_offset(f: _Facts, seed: int, r: int):
    pool = sorted((t, k) for (t, k), offs in f.keys.items() if len(offs) == 1 and not _is_system(t))
    choice = _pick(pool, "key-offset", seed, r)
    if choice is None:
        raise Unavailable
    topic, key = choice
    hits = f.store.lookup_key(topic, key)
    if len(hits) != 1:
        raise Unavailable
    msg = hits[0].message
    return _ex(
        question=f"Which physical offset holds the message of topic {topic} with the key '{key}'?",
        answer=str(msg.physical_offset), answer_type="int", expected=(msg.physical_offset,), format_hint=INT_HINT,
        explanation=(f"The index maps '{topic}#{key}' to item {hits[0].item_number} of {hits[0].index_file}, whose "
                     f"physical offset is {msg.physical_offset}; the record there has the key in its KEYS property."),
        hints=((( msg.queue_offset,), f"{msg.queue_offset} is its queue offset (its number in queue {msg.queue_id}); "
                                      "the physical offset is its byte position in the commitlog."),),
        command=f.cmd("key", topic, key),
    )


def _key_slot(f: _Facts, seed: int, r: int):
    readers = f.store.index_files()
    if not readers or not readers[0].slot_count:
        raise Unavailable
    slots = readers[0].slot_count
    pool = sorted({(t, k) for (t, k) in f.keys if not _is_system(t)})
    choice = _pick(pool, "key-slot", seed, r)
    if choice is None:
        raise Unavailable
    topic, key = choice
    s = index_key(topic, key)
    h = java_string_hash(s)
    kh = index_key_hash(s)
    slot = kh % slots
    hints = []
    bare = index_key_hash(key) % slots
    if bare != slot:
        hints.append(((bare,), f"{bare} is the slot of '{key}' alone; the index hashes the string '{s}'."))
    if h < 0 and h % slots != slot:
        hints.append(((h % slots,), "that is the signed hashCode taken modulo the slots; the index first takes "
                                    "the absolute value."))
    return _ex(
        question=f"The index files of this store have {slots} slots. In which slot does the key '{key}' of topic "
                 f"{topic} land?",
        answer=str(slot), answer_type="int", expected=(slot,), format_hint=INT_HINT, hints=tuple(hints),
        explanation=(f"The index key is '{s}'; its Java hashCode is {h}, the absolute value {kh}, and "
                     f"{kh} % {slots} = {slot}."),
        command=f.cmd("chain", topic, key),
    )


def _decode_msgid(f: _Facts, seed: int, r: int):
    pool = sorted({m.physical_offset for m in f.messages})
    off = _pick(pool, "decode-msgid", seed, r)
    if off is None:
        raise Unavailable
    msg = f.store.message_at(off)
    host = msg.store_host
    ip = str(ipaddress.ip_address(host.ip))
    return _ex(
        question=f"Decode the offset msgId {msg.msg_id}: which broker address (ip:port) and which physical offset "
                 f"does it hold?",
        answer=f"{host} {msg.stored_physical_offset}", answer_type="host-offset",
        expected=(ip, host.port, msg.stored_physical_offset),
        format_hint="an address and an offset, e.g. 10.0.0.1:10911 4096",
        explanation=(f"The first {len(msg.msg_id) - 24} hex characters are the address ({ip}), the next 8 the "
                     f"port ({host.port}), the last 16 the physical offset ({msg.stored_physical_offset})."),
        command=f"rmq-inspect decode-id {msg.msg_id} --store {f.store.root}",
    )


def _index_file_pick(f: _Facts, kind: str, seed: int, r: int):
    readers = f.store.index_files()
    pick = _pick(sorted(range(len(readers))), kind, seed, r)
    if pick is None:
        raise Unavailable
    return readers[pick]


def _index_items(f: _Facts, seed: int, r: int):
    reader = _index_file_pick(f, "index-items", seed, r)
    h = reader.header
    return _ex(
        question=f"The header of index file {reader.name} says indexCount = {h.index_count}. How many items does the "
                 f"file hold?",
        answer=str(h.items_written), answer_type="int", expected=(h.items_written,), format_hint=INT_HINT,
        hints=(((h.index_count,), "indexCount is the number the next item will get, not the count."),),
        explanation=("indexCount starts at 1 and item 0 is never written, so the items are 1 .. indexCount - 1: "
                     f"{h.index_count} - 1 = {h.items_written}."),
        command=f.cmd("info"),
    )


def _index_used_slots(f: _Facts, seed: int, r: int):
    reader = _index_file_pick(f, "index-used-slots", seed, r)
    h = reader.header
    hints = [((reader.slot_count,), f"{reader.slot_count} is the size of the slot table (broker configuration); "
                                    "most files do not fill every slot.")]
    if h.items_written != h.hash_slot_count:
        hints.append(((h.items_written,), f"{h.items_written} is the number of items; items with keys in the same "
                                          "slot share it."))
    return _ex(
        question=f"Index file {reader.name} has a table of {reader.slot_count} slots. How many slots are in use "
                 f"(hold at least one item)?",
        answer=str(h.hash_slot_count), answer_type="int", expected=(h.hash_slot_count,), format_hint=INT_HINT,
        hints=tuple(hints),
        explanation=(f"The header field hashSlotCount counts exactly that: {h.hash_slot_count}. It grows when an "
                     "item lands in an empty slot; the slot count itself is not stored in the file."),
        command=f.cmd("info"),
    )


def _user_queues(f: _Facts) -> list[tuple[str, int]]:
    """The first ``SCAN_QUEUES`` ordinary queues that hold units."""
    found = []
    for t, q in f.store.queue_ids()[: 4 * SCAN_QUEUES]:  # a store of many empty queues: look at a few hundred
        if not _is_system(t) and f.store.queue(t, q).info().message_count:
            found.append((t, q))
            if len(found) >= SCAN_QUEUES:
                break
    return found


def _queue_offsets(cq, step: int) -> list[int]:
    """Queue offsets min, min + step, ... of ``cq``; of a long queue only ``QUEUE_UNITS`` of them: the first half
    from its start, the second from the start of its second file (a later file teaches how files are named)."""
    info = cq.info()
    lo, hi = info.min_offset, info.max_offset
    if hi - lo <= QUEUE_UNITS:
        return list(range(lo, hi, step))
    half = QUEUE_UNITS // 2
    offsets = list(range(lo, lo + half, step))
    files = getattr(cq, "files", ())
    if len(files) >= 2:
        second = max(files[1][0] // CQ_UNIT_SIZE, lo + half)
        second = lo + -(-(second - lo) // step) * step  # stay on the step grid
        offsets.extend(range(second, min(hi, second + half), step))
    return offsets


def _multi_file_first(f: _Facts, step: int) -> list[tuple[str, int, int]]:
    """(topic, queue, queue offset) candidates; queues with two or more files first (they teach file names)."""
    multi, single = [], []
    for t, q in _user_queues(f):
        cq = f.store.queue(t, q)
        target = multi if len(getattr(cq, "files", ())) >= 2 else single
        target.extend((t, q, qo) for qo in _queue_offsets(cq, step))
    return multi or single


def _cq_queue_offset(f: _Facts, seed: int, r: int):
    pool = _multi_file_first(f, 3)
    later = [c for c in pool if c[2] * CQ_UNIT_SIZE >= f.store.queue(c[0], c[1]).file_size]
    pool = later or pool
    choice = _pick(pool, "cq-queue-offset", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, qo = choice
    unit = f.store.queue(topic, queue_id).unit(qo)
    name = unit.file.rsplit("/", 1)[-1]
    start = int(name)
    hints = []
    if start:
        hints.append(((unit.position // CQ_UNIT_SIZE,), f"that counts from the start of the file; the file itself "
                                                         f"starts at queue offset {start} / 20 = {start // CQ_UNIT_SIZE}."))
        hints.append(((start + unit.position // CQ_UNIT_SIZE,), "the file name counts bytes, not units: divide it by 20."))
    return _ex(
        question=f"In {topic} queue {queue_id}, consume-queue file {name} has a unit at byte position "
                 f"{unit.position}. Which queue offset does that unit hold?",
        answer=str(qo), answer_type="int", expected=(qo,), format_hint=INT_HINT, hints=tuple(hints),
        explanation=(f"Units are 20 bytes and the file name is the byte offset of its first unit in the queue: "
                     f"({start} + {unit.position}) / 20 = {qo}."),
        command=f.cmd("messages", "--topic", topic, "--queue", str(queue_id), "--from", str(qo), "--limit", "1"),
    )


def _cq_points_at(f: _Facts, seed: int, r: int):
    pool = []
    for t, q in _user_queues(f):
        pool.extend((t, q, qo) for qo in _queue_offsets(f.store.queue(t, q), 2))
    choice = _pick(pool, "cq-points-at", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, qo = choice
    unit = f.store.queue(topic, queue_id).unit(qo)
    return _ex(
        question=f"Unit {qo} of {topic} queue {queue_id}: at which physical offset does the message it points at "
                 f"start?",
        answer=str(unit.physical_offset), answer_type="int", expected=(unit.physical_offset,), format_hint=INT_HINT,
        hints=(((qo * CQ_UNIT_SIZE,), f"{qo * CQ_UNIT_SIZE} is where the unit itself sits in the queue's files; the "
                                      "unit's first 8 bytes give the commitlog offset."),),
        explanation=(f"The unit's first 8 bytes hold the commitlog offset {unit.physical_offset} (then the size "
                     f"{unit.size} and the tag code {unit.tags_code})."),
        command=f.cmd("messages", "--topic", topic, "--queue", str(queue_id), "--from", str(qo), "--limit", "1"),
    )


def _segment_end(f: _Facts, seed: int, r: int):
    scans = []
    for i in range(min(len(f.store.segments), 8)):
        f.budget.check(f"scanning {i} segments")
        scans.append(f.store.scan_segment(i))
    pool = [i for i, s in enumerate(scans) if s.messages or s.blank_position is not None]
    i = _pick(pool, "segment-end", seed, r)
    if i is None:
        raise Unavailable
    scan = scans[i]
    seg = scan.segment
    if scan.blank_position is not None:
        phy = seg.start_offset + scan.blank_position
        hints = [((seg.end_offset,), "that is the end of the file; the data stops earlier, where the BLANK starts.")]
        if seg.start_offset:
            hints.append(((scan.blank_position,), f"that is the position inside the file; add the segment's start "
                                                  f"offset {seg.start_offset}."))
        return _ex(
            question=f"Commitlog segment {seg.name} is sealed. At which physical offset does its BLANK record start?",
            answer=str(phy), answer_type="int", expected=(phy,), format_hint=INT_HINT, hints=tuple(hints),
            explanation=(f"The last message ends at position {scan.blank_position}; there the broker wrote the 8-byte "
                         f"BLANK ({scan.blank_size} bytes left, magic CBD43194) because the next message plus 8 spare "
                         f"bytes did not fit. Physical offset = {seg.start_offset} + {scan.blank_position} = {phy}."),
            command=f.cmd("info"),
        )
    end = scan.valid_end_offset
    hints = [((seg.end_offset,), "that is the end of the file; the active segment ends in zeros after its data.")]
    if seg.start_offset:
        hints.append(((scan.data_end,), f"that is the position inside the file; add the segment's start offset "
                                        f"{seg.start_offset}."))
    return _ex(
        question=f"Commitlog segment {seg.name} is the one being written (no BLANK yet). At which physical offset "
                 f"does its data end (the first byte after its last record)?",
        answer=str(end), answer_type="int", expected=(end,), format_hint=INT_HINT, hints=tuple(hints),
        explanation=(f"Its {scan.messages} records end at position {scan.data_end}, followed by zeros: "
                     f"{seg.start_offset} + {scan.data_end} = {end}, where the next message would be written."),
        command=f.cmd("info"),
    )


def _tags_code(f: _Facts, seed: int, r: int):
    pool = sorted({m.tags for m in f.messages if m.tags and not _is_system(m.topic)})
    tag = _pick(pool, "tags-code", seed, r)
    if tag is None:
        raise Unavailable
    code = java_string_hash(tag)
    hints = []
    if code < 0:
        hints.append(((code + (1 << 32),), "that reads the hash as unsigned; Java ints are signed, and the 8-byte "
                                           "tag code is the sign-extended int."))
    return _ex(
        question=f"A message has the tag '{tag}'. What tagsCode does its consume-queue unit store?",
        answer=str(code), answer_type="int", expected=(code,), format_hint=INT_HINT + " (negative allowed)",
        hints=tuple(hints),
        explanation=(f"The tag code of an ordinary message is Java's '{tag}'.hashCode() = {code}, widened to 8 bytes "
                     f"(0x{code & 0xFFFFFFFFFFFFFFFF:016X})."),
        command=f.cmd("messages", "--json", "--limit", "5"),
    )


def _delay_tagscode(f: _Facts, seed: int, r: int):
    pool = []
    for t, q in f.store.queue_ids():
        if t != SCHEDULE_TOPIC:
            continue
        for n, (unit, msg) in enumerate(f.store.queue_messages(t, q)):
            if n >= SYSTEM_UNITS:
                break
            if n % 256 == 255:
                f.budget.check(f"reading {SCHEDULE_TOPIC}")
            if unit is not None and isinstance(msg, Message) and msg.properties.get("DELAY"):
                pool.append((q, unit.queue_offset, unit.tags_code, msg.store_timestamp, msg.properties["DELAY"]))
    choice = _pick(sorted(pool), "delay-tagscode", seed, r)
    if choice is None:
        raise Unavailable
    q, qo, code, stored, level = choice
    delay = code - stored
    return _ex(
        question=f"The unit at queue offset {qo} of {SCHEDULE_TOPIC} queue {q} has tagsCode {code}; the record it "
                 f"points at was stored at {stored} (epoch ms). How long after it was stored is the message "
                 f"delivered?",
        answer=f"{delay} ms", answer_type="duration", expected=(delay,),
        format_hint="a duration, e.g. 10000 ms or 10 s",
        hints=(((code,), "that is the tag code itself: in this topic it is the delivery time; subtract the store "
                         "time."),),
        explanation=(f"In {SCHEDULE_TOPIC} the tag code is the delivery time: store time + the delay of level "
                     f"{level} (queue {q} = level - 1): {code} - {stored} = {delay} ms."),
        command=f.cmd("messages", "--topic", SCHEDULE_TOPIC, "--queue", str(q), "--json"),
    )


def _transaction_commit(f: _Facts, seed: int, r: int):
    if (HALF_TOPIC, 0) not in f.store.queue_ids():
        raise Unavailable
    halves = [m for u, m in itertools.islice(f.store.queue_messages(HALF_TOPIC, 0), SYSTEM_UNITS)
              if u is not None and isinstance(m, Message)]
    half = _pick(sorted(halves, key=lambda m: m.physical_offset), "transaction-commit", seed, r)
    if half is None:
        raise Unavailable
    real = half.properties.get("REAL_TOPIC")
    commit = None
    if real and half.unique_key:
        commit = next((h.message for h in f.store.lookup_key(real, half.unique_key)
                       if h.message.transaction == "COMMIT" and h.message.prepared_transaction_offset == half.physical_offset),
                      None)
    keys = " ".join(half.keys)
    question = (f"The half message at physical offset {half.physical_offset} (for {real}, keys '{keys}') belongs to a "
                f"transaction. At which physical offset is its COMMIT record? Answer 'none' if it was rolled back.")
    if commit is None:
        return _ex(question=question, answer="none", answer_type="int-or-none", expected=("none",),
                   format_hint="a physical offset, or 'none'",
                   explanation=(f"No record of {real} has sysFlag COMMIT with PREPARED TRANSACTION OFFSET "
                                f"{half.physical_offset}: the transaction was rolled back (only an op record marks "
                                "the half as done)."),
                   hints=(((half.physical_offset,), "that is the half message itself."),),
                   command=f.cmd("key", real or HALF_TOPIC, half.keys[0] if half.keys else half.unique_key or ""))
    return _ex(question=question, answer=str(commit.physical_offset), answer_type="int-or-none",
               expected=(commit.physical_offset,), format_hint="a physical offset, or 'none'",
               hints=(((half.physical_offset,), "that is the half message itself; the commit is a second record."),),
               explanation=(f"The COMMIT record is in {commit.topic} queue {commit.queue_id} at "
                            f"{commit.physical_offset}: sysFlag 0x{commit.sys_flag:X} (COMMIT) and PREPARED "
                            f"TRANSACTION OFFSET {commit.prepared_transaction_offset}, the half's offset."),
               command=f.cmd("key", commit.topic, commit.keys[0] if commit.keys else commit.unique_key or ""))


def _collision_item(f: _Facts, seed: int, r: int):
    found = find_collisions(f.store, limit=4, time_budget=f.budget)
    pool = []
    for c in found:
        for i in range(2):
            pool.append((c, i))
    choice = _pick(pool, "collision-item", seed, r)
    if choice is None:
        raise Unavailable
    c, i = choice
    (s1, n1, _), (s2, n2, _) = c.keys[0], c.keys[1]
    asked, right = (n1, s1) if i == 0 else (n2, s2)
    wrong = s2 if i == 0 else s1
    choices = tuple((s, (s, s.split("#", 1)[1])) for s in (s1, s2))
    return _ex(
        question=f"Items {n1} and {n2} of index file {c.file.rsplit('/', 1)[-1]} both store keyHash {c.key_hash}: one "
                 f"was written for '{s1}', the other for '{s2}'. Which key string does item {asked} belong to?",
        answer=right, answer_type="choice", expected=(right,), choices=choices,
        format_hint=f"'{s1}' or '{s2}'",
        hints=(((wrong,), "the hash cannot tell them apart: read the message the item points at."),),
        explanation=(f"Both strings have Java hashCode {c.key_hash}, so the index cannot tell them apart; item {asked} "
                     f"points at a message whose KEYS contain '{right.split('#', 1)[1]}'."),
        command=f.cmd("chain", right.split("#", 1)[0], right.split("#", 1)[1]),
    )


def _id_kind(f: _Facts, seed: int, r: int):
    pool = []
    for m in f.messages[:500]:
        pool.append((m.msg_id, "offset msgId"))
        if m.unique_key:
            pool.append((m.unique_key, "unique key"))
    choice = _pick(sorted(set(pool)), "id-kind", seed, r)
    if choice is None:
        raise Unavailable
    text, kind = choice
    readings = decode_id(text, f.store)
    found = [rd.kind for rd in readings if rd.found]
    if found != (["offset_msg_id"] if kind == "offset msgId" else ["unique_key"]):
        raise Unavailable
    choices = (
        ("offset msgId", ("offset msgid", "offset msg id", "offsetmsgid", "offset", "offset id",
                          "offset message id")),
        ("unique key", ("unique key", "uniq_key", "uniq key", "uniqkey", "unique", "uniq", "client id",
                        "client message id", "unique id")),
    )
    other = "unique key" if kind == "offset msgId" else "offset msgId"
    if kind == "offset msgId":
        r0 = readings[0].fields
        why = (f"Read as an offset msgId it names this broker ({r0['ip']}:{r0['port']}) and offset {r0['offset']}, "
               "where a record with exactly this id is stored; read as a unique key it is no message's UNIQ_KEY.")
    else:
        why = ("Read as an offset msgId it points at no record with that id; it is the UNIQ_KEY property of a message "
               "in this store (the producer's address, pid, time and counter).")
    return _ex(
        question=f"In this store, is {text} an offset msgId or a unique key (UNIQ_KEY)?",
        answer=kind, answer_type="choice", expected=(kind,), choices=choices,
        format_hint="'offset msgId' or 'unique key'",
        hints=(((other,), "both are 32 hex characters for IPv4 hosts; only trying both readings tells them apart."),),
        explanation=why,
        command=f"rmq-inspect decode-id {text} --store {f.store.root}",
    )


def _cq_file_name(f: _Facts, seed: int, r: int):
    pool = _multi_file_first(f, 1)
    later = [c for c in pool if c[2] * CQ_UNIT_SIZE >= f.store.queue(c[0], c[1]).file_size]
    later_set = set(later)  # a set: `in later` made this quadratic (14 s on a 20,000-message store)
    first = [c for c in pool if c not in later_set]
    pool = later + first[:: max(1, len(first) // max(1, len(later)))] if later else pool
    choice = _pick(pool, "cq-file-name", seed, r)
    if choice is None:
        raise Unavailable
    topic, queue_id, qo = choice
    cq = f.store.queue(topic, queue_id)
    size = cq.file_size
    per_file = size // CQ_UNIT_SIZE
    start = qo * CQ_UNIT_SIZE // size * size
    name = f"{start:020d}"
    hints = []
    wrong = qo // per_file * per_file
    if wrong != start:
        hints.append(((wrong,), f"{wrong} is the first queue offset in that file; file names count bytes "
                                f"(queue offset x 20)."))
    return _ex(
        question=f"{topic} queue {queue_id} uses consume-queue files of {size} bytes ({per_file} units). Which file "
                 f"holds queue offset {qo}?",
        answer=name, answer_type="int", expected=(start,), format_hint="a file name (20 digits) or its number",
        hints=tuple(hints),
        explanation=(f"Unit {qo} starts at byte {qo} x 20 = {qo * CQ_UNIT_SIZE} of the queue; files are named by "
                     f"the byte offset of their first unit, in steps of {size}: {name}."),
        command=f.cmd("info"),
    )


_BUILDERS = {
    "key-offset": _key_offset, "key-slot": _key_slot, "decode-msgid": _decode_msgid, "index-items": _index_items,
    "index-used-slots": _index_used_slots, "cq-queue-offset": _cq_queue_offset, "cq-points-at": _cq_points_at,
    "segment-end": _segment_end, "tags-code": _tags_code, "delay-tagscode": _delay_tagscode,
    "transaction-commit": _transaction_commit, "collision-item": _collision_item, "id-kind": _id_kind,
    "cq-file-name": _cq_file_name,
}

__all__ = ["KINDS", "CheckResult", "Exercise", "exercise_view", "generate", "parse_duration_ms", "parse_host_offset",
           "parse_int", "result_view"]
