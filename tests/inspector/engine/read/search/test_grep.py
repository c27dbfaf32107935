"""grep over the commitlog, checked against a test oracle: a plain Python scan that decodes every record and
matches each field with ``re`` (no prefilter, no boundaries, the codecs called directly)."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest
from external_tools import import_or_skip

from inspector.engine import (
    Budget,
    GrepEnd,
    GrepHit,
    Message,
    Problem,
    Store,
    compile_pattern,
    grep,
    grep_hit_view,
)
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.read.search import grep as grep_module
from inspector.engine.scan.kernels import compiled, compiled_for, python_only

T0 = 1_758_272_400_000
GEOMETRY = Geometry(segment_size=1 << 16, index_slots=64, index_items=1024)
FILLER = b'{"note":"' + b"x" * 300 + b'"}'


def _specs() -> list[MessageSpec]:
    """Messages whose fields hold NEEDLE (and needle) in every place a field can: body start/middle/end,
    compressed bodies of each codec, KEYS, UNIQ_KEY, TAGS, a property name and value; and ones that only look
    like hits across a field boundary."""
    specs = []
    filler = FILLER
    for i in range(240):  # enough records for four segments of 64 KiB
        kind = i % 12
        body, tags, keys, props, compression = filler, "plain", [f"k{i}"], {"n": str(i)}, None
        if kind == 0:
            body = b"NEEDLE at the start " + filler
        elif kind == 1:
            body = filler + b" ends with NEEDLE"
        elif kind == 2:
            body = filler[:100] + b"a needle in lower case" + filler[100:]
        elif kind == 3:
            body, compression = b"zlib " + filler + b" NEEDLE inside", "zlib"
        elif kind == 4:
            body, compression = b"lz4 NEEDLE " + filler, "lz4"
        elif kind == 5:
            body, compression = filler + b"zstd NEEDLE", "zstd"
        elif kind == 6:
            keys = [f"order-{i}", "NEEDLE-key"]
        elif kind == 7:
            tags = "NEEDLE"
        elif kind == 8:
            props = {"NEEDLE_NAME": "v", "other": "has NEEDLE in its value"}
        elif kind == 9:
            body = filler + b"NEED"  # the topic's length byte then "LEtopic": NEED.LE spans body and header
        elif kind == 10:
            body = b"LE" + filler  # the body length's last byte then "LE": only a header straddle
        specs.append(MessageSpec("LEtopic" if kind == 9 else f"T{i % 3}", body, queue_id=i % 4, tags=tags,
                                 keys=keys, properties=props, compression=compression,
                                 store_timestamp=T0 + i * 1000))
    return specs


@pytest.fixture(scope="module")
def store_root(tmp_path_factory) -> Path:
    import_or_skip("lz4.frame")
    import_or_skip("zstandard")
    root = tmp_path_factory.mktemp("grep") / "s"
    with StoreWriter(root, GEOMETRY, clock=lambda: T0) as w:
        for spec in _specs():
            w.append(spec)
    return root


def _body(msg: Message) -> bytes:
    if not msg.compressed:
        return msg.body
    if msg.compression == "ZLIB":
        return zlib.decompress(msg.body)
    if msg.compression == "LZ4":
        return import_or_skip("lz4.frame").decompress(msg.body)
    return import_or_skip("zstandard").ZstdDecompressor().decompressobj().decompress(msg.body)


def oracle(root: Path, pattern: bytes, flags: int = 0, fields=("body", "keys", "tags", "props"),
           topic: str | None = None, tag: str | None = None) -> dict[int, tuple[str, ...]]:
    """physical offset -> the kinds of fields that match, for every record, by a plain scan."""
    rx = re.compile(pattern, flags)
    out = {}
    with Store(root) as s:
        for m in s.entries():
            if not isinstance(m, Message) or (topic and m.topic != topic) or (tag and m.tags != tag):
                continue
            enc = [(k.encode("utf-8", "surrogateescape"), v.encode("utf-8", "surrogateescape"))
                   for k, v in m.properties.items()]
            parts = {"body": [_body(m)],
                     "keys": [v for k, v in enc if k in (b"KEYS", b"UNIQ_KEY")],
                     "tags": [v for k, v in enc if k == b"TAGS"],
                     "props": [x for pair in enc for x in pair]}
            kinds = tuple(f for f in fields if any(rx.search(p) for p in parts[f]))
            if kinds:
                out[m.physical_offset] = kinds
    return out


def search(root: Path, text: str, **kw) -> tuple[dict[int, tuple[str, ...]], list[Problem], GrepEnd]:
    pattern = compile_pattern(text, fixed=kw.pop("fixed", False), ignore_case=kw.pop("ignore_case", False))
    hits, problems, ends = {}, [], []
    with Store(root) as s:
        for item in grep(s, pattern, **kw):
            if isinstance(item, GrepHit):
                assert item.message.physical_offset not in hits
                hits[item.message.physical_offset] = item.fields
            elif isinstance(item, Problem):
                problems.append(item)
            else:
                ends.append(item)
    assert len(ends) == 1
    return hits, problems, ends[0]


@pytest.mark.parametrize("text,flags,kw", [
    ("NEEDLE", 0, {}),
    ("NEEDLE", 0, {"fixed": True}),
    ("needle", re.IGNORECASE, {"ignore_case": True}),
    ("needle", re.IGNORECASE, {"fixed": True, "ignore_case": True}),
    (r"NEED(LE|ED)\b", 0, {}),  # a literal prefilter, an assertion checked per field
    (r"N[E]+DLE", 0, {}),  # no literal of 3: the regex itself over the bytes
    (r"^NEEDLE", 0, {}),  # no literal beside the anchor? there is one: NEEDLE; ^ is checked per field
    (r"(?<=s )NEEDLE", 0, {}),  # a lookbehind: it sees only the field
    (r"^L", 0, {}),  # no literal, an anchor: every record decoded
    (r"NEEDLE-key|lower case|has NEEDLE", 0, {}),  # alternatives: a byte search for each
    (r"(needle|NEEDLE)\b", re.IGNORECASE, {"ignore_case": True}),  # alternatives in a group, folded
])
def test_hits_are_the_oracles(store_root, text, flags, kw):
    hits, problems, end = search(store_root, text, **kw)
    expected = oracle(store_root, text.encode() if not kw.get("fixed") else re.escape(text.encode()), flags)
    assert hits == expected
    assert expected and problems == [] and end.truncated is None and end.hits == len(expected)


def test_every_kind_of_field_is_found_and_each_alone(store_root):
    hits, _, _ = search(store_root, "NEEDLE")
    kinds = {k for fields in hits.values() for k in fields}
    assert kinds == {"body", "keys", "tags", "props"}
    for field in ("body", "keys", "tags", "props"):
        alone, _, _ = search(store_root, "NEEDLE", fields=(field,))
        assert alone == oracle(store_root, b"NEEDLE", fields=(field,))
        assert set(alone.values()) == {(field,)}


def test_compressed_bodies_are_searched_decompressed(store_root):
    with Store(store_root) as s:
        codecs = {}
        for item in grep(s, compile_pattern("NEEDLE"), fields=("body",)):
            if isinstance(item, GrepHit) and item.message.compressed:
                codecs[item.message.compression] = item
    assert set(codecs) == {"ZLIB", "LZ4", "ZSTD"}
    assert codecs["ZLIB"].match == "NEEDLE" and codecs["ZLIB"].after == " inside"
    assert codecs["LZ4"].match_offset == 4 and codecs["LZ4"].before == "lz4 "


def _log_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((root / "commitlog").iterdir()))


def test_a_match_across_a_field_boundary_or_the_header_is_no_hit(store_root):
    # NEED at a body's end, the topic's length byte, then the topic LEtopic: in the record's bytes, in no field
    assert re.search(rb"NEED.LE", _log_bytes(store_root))
    hits, _, end = search(store_root, "NEED.LE")
    assert hits == {} == oracle(store_root, b"NEED.LE")
    assert end.records_decoded >= 20  # the prefilter found the straddling bytes; the field check dropped them
    # the body length's low byte then the body "LE{...": header and body, never one field
    low = len(b"LE" + FILLER) & 0xFF
    assert bytes([low]) + b"LE{" in _log_bytes(store_root) and chr(low).isalnum()
    hits, _, end = search(store_root, chr(low) + r"LE\{")
    assert hits == {} == oracle(store_root, bytes([low]) + rb"LE\{")
    assert end.records_decoded >= 20


def test_topic_and_tag_filters(store_root):
    hits, _, _ = search(store_root, "NEEDLE", topic="T1")
    assert hits == oracle(store_root, b"NEEDLE", topic="T1") != {}
    hits, _, _ = search(store_root, "NEEDLE", tag="NEEDLE")
    assert hits == oracle(store_root, b"NEEDLE", tag="NEEDLE") != {}


def test_the_compiled_and_the_python_paths_give_the_same_hits(store_root, numba_in_use):
    compiled()  # loaded: a small store then walks with the kernels too (compiled_for)
    assert compiled_for(1) is not None
    hits, _, _ = search(store_root, "NEEDLE")
    with python_only():
        assert search(store_root, "NEEDLE")[0] == hits == oracle(store_root, b"NEEDLE")


def test_a_hit_names_the_record(store_root):
    with Store(store_root) as s:
        hit = next(i for i in grep(s, compile_pattern("NEEDLE-key")) if isinstance(i, GrepHit))
        msg = s.message_at(hit.message.physical_offset)
    view = grep_hit_view(hit)
    assert view["msg_id"] == msg.msg_id and view["unique_key"] == msg.unique_key
    assert (view["topic"], view["queue_id"], view["queue_offset"]) == (msg.topic, msg.queue_id, msg.queue_offset)
    assert view["store_timestamp"] == msg.store_timestamp
    assert view["field"] == "KEYS" and view["fields"] == ["keys", "props"] and view["match"] == "NEEDLE-key"


def test_the_limit_and_a_budget_say_the_answer_is_partial(store_root):
    hits, _, end = search(store_root, "NEEDLE", limit=3)
    assert len(hits) == 3 and end.hits == 3
    assert end.truncated is not None and "limit" in end.truncated
    assert list(hits) == sorted(oracle(store_root, b"NEEDLE"))[:3]
    hits, _, end = search(store_root, "NEEDLE", budget=Budget(should_stop=lambda: True))
    assert end.truncated is not None and "stopped on request" in end.truncated
    assert end.searched_bytes < end.total_bytes


def test_progress_reaches_the_total(store_root):
    seen = []
    search(store_root, "NEEDLE", progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)


def _damaged_copy(root: Path, tmp_path: Path) -> tuple[Path, int, int]:
    """A copy with a record in the middle of the first segment overwritten by garbage and the log's last record
    torn (its second half zeros): (root, where the garbage is, where the torn record starts)."""
    import shutil

    copy = tmp_path / "damaged"
    shutil.copytree(root, copy)
    with Store(copy) as s:
        msgs = [m for m in s.entries() if isinstance(m, Message)]
    middle, last = msgs[20], msgs[-1]
    for msg, at, data in ((middle, 4, b"\xee" * 40), (last, last.total_size // 2, bytes(last.total_size // 2))):
        path = copy / msg.file
        raw = bytearray(path.read_bytes())
        raw[msg.position + at : msg.position + at + len(data)] = data
        path.write_bytes(bytes(raw))
    return copy, middle.physical_offset, last.physical_offset


def test_damage_is_reported_and_the_search_goes_on(store_root, tmp_path):
    copy, middle, last = _damaged_copy(store_root, tmp_path)
    hits, problems, end = search(copy, "NEEDLE")
    expected = {off: k for off, k in oracle(store_root, b"NEEDLE").items() if off not in (middle, last)}
    assert hits == expected and end.truncated is None
    where = {(p.file, p.offset) for p in problems}
    with Store(copy) as s:
        assert (s.commitlog.place(middle)) in where
        assert (s.commitlog.place(last)) in where
    assert max(hits) > middle  # records after the damage are still searched


def test_a_body_that_does_not_decompress_is_reported(store_root, tmp_path):
    copy, _, _ = _damaged_copy(store_root, tmp_path)
    with Store(copy) as s:
        target = next(m for m in s.entries() if isinstance(m, Message) and m.compression == "ZLIB")
    path = copy / target.file
    raw = bytearray(path.read_bytes())
    body_at = bytes(raw).find(target.body, target.position)
    assert target.position < body_at < target.position + target.total_size
    raw[body_at + 2 : body_at + 12] = b"\xff" * 10  # past the zlib header: the stream is corrupt
    path.write_bytes(bytes(raw))
    _, problems, _ = search(copy, "NEEDLE", fields=("body",))
    assert any((p.file, p.offset, p.code) == (target.file, target.position, "body-undecompressable")
               for p in problems)


def test_a_body_past_the_limit_is_searched_in_part_and_said(store_root, monkeypatch):
    monkeypatch.setattr(grep_module, "BODY_LIMIT", 100)
    hits, problems, _ = search(store_root, "NEEDLE", fields=("body",))
    cut = [p for p in problems if p.code == "body-search-cut"]
    assert cut and all(p.severity == "info" for p in cut)
    # "zlib <filler> NEEDLE inside" holds NEEDLE past byte 100: not found, and said; "lz4 NEEDLE" is found
    compressed = {m for m in hits if _is(store_root, m, "LZ4")}
    assert compressed and not any(_is(store_root, m, "ZLIB") for m in hits)


def _is(root: Path, offset: int, codec: str) -> bool:
    with Store(root) as s:
        return s.message_at(offset).compression == codec


def test_real_commitlogs_match_the_oracle(real_commitlog_stores):
    for name, root in real_commitlog_stores.items():
        for text, flags, kw in (("chance", 0, {}), ("ONCE, THERE", re.IGNORECASE, {"ignore_case": True}),
                                (r"TAG\d", 0, {}), ("(me)!", 0, {"fixed": True}), (r"for me!$", 0, {})):
            hits, _, end = search(root, text, **kw)
            expected = oracle(root, re.escape(text.encode()) if kw.get("fixed") else text.encode(), flags)
            assert hits == expected, (name, text)
            assert end.truncated is None
            assert hits or text == "(me)!", (name, text)  # the real stores' bodies: "Once, there was a chance for me!"


@pytest.mark.parametrize("sample", ["sample_store", "sample_store_dledger", "sample_store_aged"])
def test_the_sample_stores_match_the_oracle(sample):
    """A DLedger store (records after 48-byte entry headers) and an aged one (retention, a crash) too."""
    root = Path(__file__).parents[5] / sample
    for text, flags, kw in (("order-11", 0, {}), ("CAPTURED", re.IGNORECASE, {"ignore_case": True}),
                            (r"(created|refunded)\b", 0, {})):
        hits, _, end = search(root, text, **kw)
        assert hits == oracle(root, text.encode(), flags) != {}, (sample, text)
        assert end.truncated is None


def test_the_end_counts_the_log_left_unread_a_missing_segment_among_them(tmp_path):
    """A hole in the log (a middle segment gone) is found before the walk: the end's ``unread`` says the search
    did not see all of the log, so "no hit" is no answer; the whole log read gives 0."""
    from multi_segment_store import write_multi_segment_store

    root = write_multi_segment_store(tmp_path / "s")
    with Store(root) as s:
        end = [i for i in grep(s, compile_pattern("absent text")) if isinstance(i, GrepEnd)]
    assert end[0].unread == 0
    segments = sorted((root / "commitlog").iterdir())
    segments[1].unlink()
    with Store(root) as s:
        items = list(grep(s, compile_pattern("absent text")))
    codes = [i.code for i in items if isinstance(i, Problem)]
    assert "missing-segment" in codes and items[-1].unread == sum(c == "missing-segment" for c in codes) >= 1
