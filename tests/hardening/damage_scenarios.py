"""The corruption table: one function per named scenario, in the style of LevelDB's log tests.

Each function damages a fresh copy of ``sample_store/`` (``root``) and returns a :class:`Damage`: the exact
findings the engine must report as (file relative to the store root, byte offset, problem code), the exact
knock-on findings (consume-queue units and index items that point at a record the damage destroyed), and
what the commands should be pointed at. Every offset is read from the undamaged copy through the engine
(its walk, the field layout of ``inspector.engine.present.layout``, the queue and index readers), never typed in.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine import Message, Store
from inspector.engine.model.records import Segment
from inspector.engine.present.layout import regions
from parsers.consumequeue import CQ_UNIT_SIZE
from parsers.indexfile import item_position, slot_position

Finding = tuple[str, int, str]  # (file, offset, code)
REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"


@dataclass
class Damage:
    """What a scenario did and what must be found.

    ``findings``: every one must be reported, and nothing else may be except ``knock_on`` (exact too) and
    problems matching ``tolerated`` (file, code) pairs (consequences whose count is not the point).
    ``path``: what the commands are given (the store root, or a broken path for the store-path cases).
    ``ref``: a physical offset for ``show``/``hex`` (the damaged record when there is one).
    """

    findings: set[Finding]
    knock_on: set[Finding] = field(default_factory=set)
    tolerated: set[tuple[str, str]] = field(default_factory=set)
    path: Path | None = None
    ref: int | None = None
    path_error: str | None = None  # store-path cases: the text the one-line error must contain

    @property
    def walk_findings(self) -> set[Finding]:
        """The findings the commitlog walk itself (info, messages, the TUI's background scan) must show."""
        return {f for f in self.findings if f[0].startswith("commitlog") and f[2] not in VERIFY_ONLY}


VERIFY_ONLY = {"body-undecompressable"}  # commitlog findings of verify's own per-record checks, not of the walk


# -- reading the undamaged copy ---------------------------------------------------------------------------------


def messages(root: Path) -> list[Message]:
    with Store(root) as s:
        return [e for e in s.entries() if isinstance(e, Message)]


def victim(root: Path, segment: int = 0) -> Message:
    """A message of a user topic, with tags and keys, in the middle of a segment."""
    msgs = messages(root)
    with Store(root) as s:
        seg = s.segments[segment]
    users = [m for m in msgs if m.file == seg.file and m.keys and m.tags and not m.topic.startswith(("RMQ_", "SCHED"))]
    return users[len(users) // 2]


def field_at(root: Path, msg: Message, name: str) -> tuple[str, int, int]:
    """(segment file, position in the segment, length) of one field of ``msg``, from the engine's field layout."""
    with Store(root) as s:
        region = next(r for r in regions(s.commitlog, msg.physical_offset, msg.physical_offset + 1)
                      if r.start == msg.physical_offset)
        f = next(f for f in region.fields if f.name == name)
    return msg.file, f.start - (msg.physical_offset - msg.position), f.length


def patch(root: Path, rel: str, position: int, data: bytes) -> None:
    path = root / rel
    raw = bytearray(path.read_bytes())
    raw[position : position + len(data)] = data
    path.write_bytes(bytes(raw))


def patch_field(root: Path, msg: Message, name: str, value: int | bytes) -> int:
    """Overwrite a field of ``msg``; returns the field's position in its segment."""
    rel, pos, length = field_at(root, msg, name)
    data = value if isinstance(value, bytes) else value.to_bytes(length, "big", signed=True)
    patch(root, rel, pos, data)
    return pos


def dependents(root: Path, offsets: set[int], cq_code: str, index_code: str | None = "index-dangling") -> set[Finding]:
    """The consume-queue units and index items that point at the records at ``offsets`` (read before the damage)."""
    found: set[Finding] = set()
    with Store(root) as s:
        for topic, qid in s.queue_ids():
            for unit in s.queue(topic, qid).units(0):
                if getattr(unit, "physical_offset", None) in offsets:
                    found.add((unit.file, unit.position, cq_code))
        if index_code:
            for reader in s.index_files():
                for item in reader.items():
                    if item.phy_offset in offsets:
                        found.add((reader.rel, item_position(item.number, reader.slot_count), index_code))
    return found


def unit_of(root: Path, msg: Message) -> tuple[str, int]:
    """(file, position) of the consume-queue unit that points at ``msg``."""
    with Store(root) as s:
        unit = next(u for u in s.queue(msg.topic, msg.queue_id).units(0) if u.physical_offset == msg.physical_offset)
        return unit.file, unit.position


def _killed(root: Path, msg: Message, code: str, **patches: int | bytes) -> Damage:
    """Patch fields of ``msg`` so the record no longer reads: one finding at it, its units and items dangle."""
    rel = msg.file
    knock = dependents(root, {msg.physical_offset}, "cq-dangling")
    for name, value in patches.items():
        patch_field(root, msg, name.replace("_", " "), value)
    return Damage({(rel, msg.position, code)}, knock, ref=msg.physical_offset)


# -- commitlog records ------------------------------------------------------------------------------------------


def torn_final_record(root: Path) -> Damage:
    """The broker died while writing the last record: its second half never reached the disk."""
    *rest, last = messages(root)
    seg = root / last.file
    raw = bytearray(seg.read_bytes())
    half = last.position + last.total_size // 2
    raw[half : last.position + last.total_size] = bytes(last.position + last.total_size - half)
    seg.write_bytes(bytes(raw))
    knock = dependents(root, {last.physical_offset}, "cq-past-end")
    # the checkpoint's times may now run ahead of the newest readable record
    newest = max(m.store_timestamp for m in rest)
    with Store(root) as s:
        cp = s.checkpoint()
    if cp.physic_msg_timestamp > newest:
        knock.add(("checkpoint", 0, "checkpoint-ahead"))
    if cp.logics_msg_timestamp > newest:
        knock.add(("checkpoint", 8, "checkpoint-ahead"))
    return Damage({(last.file, last.position, "length-mismatch")}, knock, ref=last.physical_offset)


def zeroed_page_mid_segment(root: Path) -> Damage:
    """A 4 KiB page in the middle of segment 0 reads back as zeros (lost write)."""
    msgs = [m for m in messages(root) if m.file.endswith("0" * 20)]
    page = (msgs[len(msgs) // 2].position // 4096 + 1) * 4096
    hit = [m for m in msgs if m.position < page + 4096 and m.position + m.total_size > page]
    patch(root, hit[0].file, page, bytes(4096))
    first = hit[0]
    code = "zeroed-region" if first.position == page else "length-mismatch"
    knock = dependents(root, {m.physical_offset for m in hit}, "cq-dangling")
    return Damage({(first.file, first.position, code)}, knock, ref=first.physical_offset)


def bad_magic(root: Path) -> Damage:
    return _killed(root, victim(root), "bad-magic", MAGICCODE=0x12345678)


def totalsize_zero(root: Path) -> Damage:
    return _killed(root, victim(root), "bad-size", TOTALSIZE=0)


def totalsize_negative(root: Path) -> Damage:
    return _killed(root, victim(root), "bad-size", TOTALSIZE=-300)


def totalsize_larger_than_segment(root: Path) -> Damage:
    with Store(root) as s:
        size = s.commitlog.segment_size
    return _killed(root, victim(root), "torn-record", TOTALSIZE=size + 1)


def totalsize_int_max(root: Path) -> Damage:
    return _killed(root, victim(root), "torn-record", TOTALSIZE=(1 << 31) - 1)


def body_length_larger_than_record(root: Path) -> Damage:
    m = victim(root)
    return _killed(root, m, "bad-body-length", BODY_length=m.total_size + 1)


def topic_length_byte_0x80(root: Path) -> Damage:
    return _killed(root, victim(root), "bad-topic-length", TOPIC_length=bytes([0x80]))


def _props_damage(root: Path, m: Message, new: bytes) -> Damage:
    """Replace the properties text of ``m`` (same length): the record reads, its unit and items no longer match."""
    rel, pos, length = field_at(root, m, "PROPERTIES")
    assert len(new) == length
    unit_file, unit_pos = unit_of(root, m)
    items = dependents(root, {m.physical_offset}, "cq-mismatch", "index-key-mismatch")
    patch(root, rel, pos, new)
    return Damage({(unit_file, unit_pos, "cq-mismatch")}, items - {(unit_file, unit_pos, "cq-mismatch")},
                  ref=m.physical_offset)


def properties_without_separators(root: Path) -> Damage:
    """Every 0x01/0x02 of the properties is a space: no tags, no keys, no UNIQ_KEY any more."""
    m = victim(root)
    _, pos, length = field_at(root, m, "PROPERTIES")
    text = (root / m.file).read_bytes()[pos : pos + length]
    return _props_damage(root, m, text.replace(b"\x01", b" ").replace(b"\x02", b" "))


def properties_invalid_utf8(root: Path) -> Damage:
    """The tag and the keys carry bytes that are no UTF-8 (0xFF); what they hash to changes."""
    m = victim(root)
    _, pos, length = field_at(root, m, "PROPERTIES")
    text = bytearray((root / m.file).read_bytes()[pos : pos + length])
    for name in (b"TAGS\x01", b"KEYS\x01", b"UNIQ_KEY\x01"):
        at = text.find(name)
        if at < 0:
            continue
        at += len(name)
        end = text.find(b"\x02", at)
        for i in range(at, len(text) if end < 0 else end):  # the first byte of every word (each key)
            if i == at or text[i - 1] == 0x20:
                text[i] = 0xFF
    return _props_damage(root, m, bytes(text))


def flipped_body_crc(root: Path) -> Damage:
    m = victim(root)
    rel, pos, _ = field_at(root, m, "BODYCRC")
    patch(root, rel, pos, (m.body_crc ^ 1).to_bytes(4, "big", signed=True))
    return Damage({(m.file, m.position, "crc-mismatch")}, ref=m.physical_offset)


def physical_offset_mismatch(root: Path) -> Damage:
    m = victim(root)
    patch_field(root, m, "PHYSICALOFFSET", m.physical_offset + 1000)
    return Damage({(m.file, m.position, "offset-mismatch")}, ref=m.physical_offset)


def sysflag_says_zstd_body_is_plain(root: Path) -> Damage:
    """The sysFlag of a plain record says its body is ZSTD-compressed: a consumer's decompression would fail."""
    m = victim(root)
    patch_field(root, m, "SYSFLAG", m.sys_flag | 0x1 | (2 << 8))
    return Damage({(m.file, m.position, "body-undecompressable")}, ref=m.physical_offset)


def compressed_body_garbled(root: Path) -> Damage:
    """A ZLIB-compressed body garbled in the middle, its BODYCRC recomputed: only decompression can tell."""
    from inspector.engine.model.crc import rocketmq_crc32

    m = next(e for e in messages(root) if e.compression == "ZLIB")
    rel, pos, length = field_at(root, m, "BODY")
    body = bytearray((root / rel).read_bytes()[pos : pos + length])
    body[len(body) // 2 : len(body) // 2 + 8] = b"\xff" * 8
    patch(root, rel, pos, bytes(body))
    patch_field(root, m, "BODYCRC", rocketmq_crc32(bytes(body)))
    return Damage({(m.file, m.position, "body-undecompressable")}, ref=m.physical_offset)


# -- commitlog segments -----------------------------------------------------------------------------------------


def segment_wrong_size(root: Path) -> Damage:
    """The middle segment is cut to half its size: the record across the cut is torn, the rest of it gone."""
    with Store(root) as s:
        seg = s.segments[1]
        cut = seg.file_size // 2
    msgs = [m for m in messages(root) if m.file == seg.file]
    torn = next(m for m in msgs if m.position < cut < m.position + m.total_size)
    lost = {m.physical_offset for m in msgs if m.position + m.total_size > cut}
    knock = dependents(root, lost, "cq-dangling")
    path = root / seg.file
    path.write_bytes(path.read_bytes()[:cut])
    return Damage({(seg.file, 0, "wrong-segment-size"), (seg.file, torn.position, "torn-record")}, knock,
                  {("consumequeue/", "cq-past-end")}, ref=torn.physical_offset)


def _middle_segment_gone(root: Path) -> tuple[Segment, Segment, set]:
    """Delete the second segment: it, the one after it, and the findings its lost messages cause elsewhere."""
    with Store(root) as s:
        gone, after = s.segments[1], s.segments[2]
    lost = {m.physical_offset for m in messages(root) if m.file == gone.file}
    knock = dependents(root, lost, "cq-dangling")
    (root / gone.file).unlink()
    return gone, after, knock


def missing_middle_segment(root: Path) -> Damage:
    gone, after, knock = _middle_segment_gone(root)
    return Damage({(after.file, 0, "missing-segment")}, knock, ref=gone.start_offset)


def extra_preallocated_segment(root: Path) -> Damage:
    """An all-zero segment after the last one (the broker preallocates the next file): nothing is wrong."""
    with Store(root) as s:
        last = s.segments[-1]
        size = s.commitlog.segment_size
    (root / "commitlog" / f"{last.start_offset + size:020d}").write_bytes(bytes(size))
    return Damage(set(), ref=last.start_offset + size)


def empty_commitlog_directory(root: Path) -> Damage:
    """Every segment deleted (an empty log is no problem in itself): every unit and item now points past its end."""
    every = {m.physical_offset for m in messages(root)}
    findings = dependents(root, every, "cq-past-end")
    for p in (root / "commitlog").iterdir():
        p.unlink()
    return Damage(findings, tolerated={("index/", "index-header")}, ref=0)


def segment_name_past_int64(root: Path) -> Damage:
    """A copy of the last segment named 99999999999999999999 (above 2^63): no segment can start there."""
    with Store(root) as s:
        last = s.segments[-1]
    shutil.copyfile(root / last.file, root / "commitlog" / ("9" * 20))
    return Damage({("commitlog/" + "9" * 20, 0, "bad-file-name")})  # no record is damaged: nothing to show


def unknown_entries(root: Path) -> Damage:
    """Files and folders the engine does not read, where it reads: each a warning (verify still exits 0), never
    skipped without a word. Warnings are no ``findings`` here (those make verify exit 4): see UNKNOWN_ENTRIES."""
    (root / "commitlog" / "abc").write_bytes(b"x")
    (root / "commitlog" / ("0" * 24 + "1")).write_bytes(b"x")
    (root / "index" / "notatime").write_bytes(b"x")
    (root / "consumequeue" / "OrderEvents" / "abc").mkdir()
    return Damage(set(), tolerated={(file, code) for file, _, code in UNKNOWN_ENTRIES})


UNKNOWN_ENTRIES = {("commitlog/abc", 0, "unknown-file"), ("commitlog/" + "0" * 24 + "1", 0, "unknown-file"),
                   ("index/notatime", 0, "unknown-file"), ("consumequeue/OrderEvents/abc", 0, "unknown-file")}


# -- consume queues ---------------------------------------------------------------------------------------------


def _busiest_queue_file(root: Path) -> tuple[str, int]:
    with Store(root) as s:
        infos = s.queue_infos()
    best = max(infos, key=lambda q: q.message_count)
    return best.files[0], best.message_count


def cq_truncated_mid_unit(root: Path) -> Damage:
    rel, count = _busiest_queue_file(root)
    keep = (count // 2) * CQ_UNIT_SIZE + CQ_UNIT_SIZE // 2
    path = root / rel
    path.write_bytes(path.read_bytes()[:keep])
    with Store(root) as s:
        expected = s.cq_file_size
    findings = {(rel, keep - CQ_UNIT_SIZE // 2, "partial-cq-unit")}
    if expected is None:
        findings.add((rel, 0, "wrong-cq-file-size"))
    return Damage(findings, tolerated={(rel, "wrong-cq-file-size")}, ref=None)


def cq_unit_past_commitlog_end(root: Path) -> Damage:
    rel, count = _busiest_queue_file(root)
    pos = (count // 2) * CQ_UNIT_SIZE
    with Store(root) as s:
        end = s.max_offset()
    patch(root, rel, pos, (end + 1000).to_bytes(8, "big"))
    return Damage({(rel, pos, "cq-past-end")})


def cq_unit_at_blank(root: Path) -> Damage:
    """A unit pointing at segment 0's BLANK record (between its neighbours, so the order still holds)."""
    with Store(root) as s:
        blank = s.segments[0].start_offset + s.scan_segment(0).blank_position
        for topic, qid in s.queue_ids():
            units = [u for u in s.queue(topic, qid).units(0)]
            for a, b in zip(units, units[1:], strict=False):
                if a.physical_offset < blank < b.physical_offset and b.physical_offset >= blank + b.size:
                    target = b
                    break
            else:
                continue
            break
    patch(root, target.file, target.position, blank.to_bytes(8, "big"))
    return Damage({(target.file, target.position, "cq-dangling")}, ref=blank)


def cq_unit_negative(root: Path) -> Damage:
    """One unit in the middle of queue OrderEvents/3 with a negative offset, one with a negative size: each is
    a finding and the queue's other units are still read (the broker's recovery would cut the queue there)."""
    with Store(root) as s:
        units = [u for u in s.queue("OrderEvents", 3).units(0)]
    a, b = units[10], units[len(units) // 2]
    patch(root, a.file, a.position, (-5).to_bytes(8, "big", signed=True))
    patch(root, b.file, b.position + 8, (-1).to_bytes(4, "big", signed=True))
    return Damage({(a.file, a.position, "cq-bad-unit"), (b.file, b.position, "cq-bad-unit")})


# -- index files ------------------------------------------------------------------------------------------------


def _first_index(root: Path):
    with Store(root) as s:
        r = s.index_files()[0]
        return r.rel, r.slot_count, r.item_count, r.header, [r.slot_value(n) or 0 for n in range(r.slot_count)]


def index_truncated_in_slot_table(root: Path) -> Damage:
    rel, slots, items, _, _ = _first_index(root)
    cut = slot_position(slots // 2)
    path = root / rel
    path.write_bytes(path.read_bytes()[:cut])
    # the cut file's items are unreadable, so the log it indexed is covered by no index file: verify names that range
    # (index-gap, issue 29) at the first record the broker would have indexed
    return Damage({(rel, cut, "index-size")}, tolerated={(rel, "index-truncated"), (rel, "index-header"),
                                                          ("commitlog/00000000000000000000", "index-gap")})


def slot_past_index_count(root: Path) -> Damage:
    rel, _, _, header, values = _first_index(root)
    slot = values.index(max(values))
    patch(root, rel, slot_position(slot), (header.index_count + 5).to_bytes(4, "big"))
    return Damage({(rel, slot_position(slot), "index-bad-slot")}, tolerated={(rel, "index-orphan-items"),
                                                                               (rel, "index-header")})


def chain_links_loop(root: Path) -> Damage:
    """The oldest item of a chain links back to the chain's head."""
    with Store(root) as s:
        r = s.index_files()[0]
        slot = next(n for n in range(r.slot_count) if (r.slot_value(n) or 0) and
                    (r.item(r.slot_value(n)).prev_index or 0) > 0)
        head = number = r.slot_value(slot)
        while r.item(number).prev_index:
            number = r.item(number).prev_index
        rel, slots = r.rel, r.slot_count
    patch(root, rel, item_position(number, slots) + 16, head.to_bytes(4, "big"))
    return Damage({(rel, slot_position(slot), "index-loop"), (rel, item_position(number, slots) + 16,
                                                               "index-bad-link")})


def header_counters_disagree(root: Path) -> Damage:
    """hashSlotCount and indexCount in the header say more than the slots and items hold."""
    rel, _, items, header, _ = _first_index(root)
    patch(root, rel, 32, (header.hash_slot_count + 7).to_bytes(4, "big"))
    patch(root, rel, 36, (header.index_count + 3).to_bytes(4, "big"))
    findings = {(rel, 32, "index-header"), (rel, 36, "index-truncated")}
    if header.index_count + 3 > items:  # a full file: the count also runs past the item table
        findings.add((rel, 36, "index-header"))
    return Damage(findings)


def index_header_counts_minus_one(root: Path) -> Damage:
    """hashSlotCount and indexCount are -1 in every index file: lookups must not answer "not found"."""
    findings = set()
    with Store(root) as s:
        rels = [r.rel for r in s.index_files()]
    for rel in rels:
        patch(root, rel, 32, (-1).to_bytes(4, "big", signed=True) * 2)
        findings |= {(rel, 32, "index-header"), (rel, 36, "index-header")}
    return Damage(findings)


# -- root files -------------------------------------------------------------------------------------------------


def checkpoint_wrong_size(root: Path) -> Damage:
    path = root / "checkpoint"
    path.write_bytes(path.read_bytes()[:30])
    return Damage({("checkpoint", 0, "bad-checkpoint")})


def config_cut_in_half_with_good_bak(root: Path) -> Damage:
    path = root / "config" / "topics.json"
    data = path.read_bytes()
    (root / "config" / "topics.json.bak").write_bytes(data)
    path.write_bytes(data[: len(data) // 2])
    return Damage({("config/topics.json", 0, "bad-config"), ("config/topics.json", 0, "config-from-backup")})


def config_top_level_not_object(root: Path) -> Damage:
    """Config files whose top level is [], null, a 50 MB string: each a finding, never a silently empty table."""
    (root / "config" / "consumerOffset.json").write_text("[]")
    (root / "config" / "delayOffset.json").write_text("null")
    (root / "config" / "subscriptionGroup.json").write_text('"' + "x" * (50 << 20) + '"')
    return Damage({(f"config/{name}", 0, "config-not-object")
                   for name in ("consumerOffset.json", "delayOffset.json", "subscriptionGroup.json")})


def config_number_too_long(root: Path) -> Damage:
    """A 5,000-digit integer key in delayOffset.json: "number too long", with the line and column."""
    path = root / "config" / "delayOffset.json"
    text = path.read_text()
    at = text.index("{", text.index('"offsetTable"')) + 1
    path.write_text(text[:at] + "9" * 5000 + ":1," + text[at:])
    return Damage({("config/delayOffset.json", 0, "bad-config")})


def unreadable_segment(root: Path) -> Damage:
    """A segment with no read permission (as root, which reads anyway, the case is skipped)."""
    with Store(root) as s:
        seg = s.segments[1]
    lost = {m.physical_offset for m in messages(root) if m.file == seg.file}
    os.chmod(root / seg.file, 0)
    return Damage({(seg.file, 0, "unreadable-file")}, dependents(root, lost, "cq-dangling"), ref=seg.start_offset)


def segment_is_a_directory(root: Path) -> Damage:
    """A segment that cannot be read even by root: a directory where the file should be (named, then missing)."""
    seg, after, knock = _middle_segment_gone(root)
    (root / seg.file).mkdir()
    return Damage({(seg.file, 0, "not-a-segment-file"), (after.file, 0, "missing-segment")}, knock,
                  ref=seg.start_offset)


# -- the store path itself --------------------------------------------------------------------------------------


def store_path_is_a_file(root: Path) -> Damage:
    path = root.parent / "a-file"
    path.write_text("not a store\n")
    return Damage(set(), path=path, path_error="not a directory")


def store_path_symlink_loop(root: Path) -> Damage:
    a, b = root.parent / "loop-a", root.parent / "loop-b"
    a.symlink_to(b)
    b.symlink_to(a)
    return Damage(set(), path=a, path_error="cannot open store")


def store_path_missing(root: Path) -> Damage:
    return Damage(set(), path=root.parent / "no-such-store", path_error="cannot open store")


def store_path_unreadable(root: Path) -> Damage:
    os.chmod(root, 0)
    return Damage(set(), path=root, path_error="cannot")


@dataclass(frozen=True)
class Scenario:
    name: str
    damage: Callable[[Path], Damage]
    needs_permissions: bool = False  # chmod does not stop root: skipped when running as root

    @property
    def store_path_case(self) -> bool:
        return self.name.startswith("store_path")


SCENARIOS = [
    Scenario(f.__name__, f, f in (unreadable_segment, store_path_unreadable))
    for f in (
        torn_final_record, zeroed_page_mid_segment, bad_magic, totalsize_zero, totalsize_negative,
        totalsize_larger_than_segment, totalsize_int_max, body_length_larger_than_record, topic_length_byte_0x80,
        properties_without_separators, properties_invalid_utf8, flipped_body_crc, physical_offset_mismatch,
        segment_wrong_size, missing_middle_segment, extra_preallocated_segment, empty_commitlog_directory,
        cq_truncated_mid_unit, cq_unit_past_commitlog_end, cq_unit_at_blank,
        index_truncated_in_slot_table, slot_past_index_count, chain_links_loop, header_counters_disagree,
        checkpoint_wrong_size, config_cut_in_half_with_good_bak, unreadable_segment, segment_is_a_directory,
        # the second round (issue 22)
        sysflag_says_zstd_body_is_plain, compressed_body_garbled, segment_name_past_int64,
        cq_unit_negative, index_header_counts_minus_one, config_top_level_not_object, config_number_too_long,
        store_path_is_a_file, store_path_symlink_loop, store_path_missing, store_path_unreadable,
    )
]
DATA_SCENARIOS = [s for s in SCENARIOS if not s.store_path_case]
# Damage that only warns (verify exits 0), which the corruption suite's per-scenario tests cannot express (there
# an empty ``findings`` means "nothing at all is reported"): test_second_round.py drives these itself.
WARNING_SCENARIOS = [Scenario(f.__name__, f) for f in (unknown_entries,)]
# The terminal UI is driven on every scenario; a Textual run costs seconds of CPU (styling eight screens), so
# RMQ_INSPECT_TUI_STAND_INS=1 drives it only on one scenario per family that reaches the screens the same way.
TUI_STAND_IN = {
    **dict.fromkeys(("zeroed_page_mid_segment", "totalsize_zero", "totalsize_negative", "totalsize_larger_than_segment",
                     "totalsize_int_max", "body_length_larger_than_record", "topic_length_byte_0x80"), "bad_magic"),
    "properties_without_separators": "properties_invalid_utf8", "physical_offset_mismatch": "flipped_body_crc",
    "segment_wrong_size": "missing_middle_segment", "segment_is_a_directory": "missing_middle_segment",
    "extra_preallocated_segment": "missing_middle_segment", "cq_unit_past_commitlog_end": "cq_unit_at_blank",
    "index_truncated_in_slot_table": "chain_links_loop", "slot_past_index_count": "chain_links_loop",
    "header_counters_disagree": "chain_links_loop", "checkpoint_wrong_size": "config_cut_in_half_with_good_bak",
    "unreadable_segment": "missing_middle_segment",
    "compressed_body_garbled": "sysflag_says_zstd_body_is_plain", "config_number_too_long": "config_top_level_not_object",
}
PATH_SCENARIOS = [s for s in SCENARIOS if s.store_path_case]


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def make(scenario: Scenario, base: Path) -> tuple[Path, Damage]:
    """A fresh copy of the sample store under ``base``, damaged by ``scenario``."""
    root = base / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    damage = scenario.damage(root)
    if damage.path is None:
        damage.path = root
    return root, damage


def restore_permissions(base: Path) -> None:
    """Undo chmod 000 so pytest can delete the tmp dir."""
    if base.exists():
        os.chmod(base, 0o755)
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                os.chmod(p, 0o755)

