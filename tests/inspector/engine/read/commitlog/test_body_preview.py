"""body_preview and body_line: the one body preview every view shows (issue 27 item 2, issue 28 item 3).
Bodies are put into a real sample-store message (``dataclasses.replace``) so the sysFlag decides the codec as in
a store; the sample's ZLIB, LZ4 and ZSTD records are previewed as they are."""

from __future__ import annotations

import json
import zlib
from dataclasses import replace
from pathlib import Path

import pytest

from inspector.engine import body_line, body_preview, has_terminal_controls
from inspector.engine.read.commitlog.body import decompress_body
from inspector.engine.read.store.store import Store

SAMPLE = Path(__file__).parents[5] / "sample_store"
ZLIB = 0x300 | 1  # MessageSysFlag: compressed, type ZLIB


@pytest.fixture(scope="module")
def sample():
    with Store(SAMPLE) as s:
        msgs = [m for m in s.entries(0) if hasattr(m, "body")]
        yield next(m for m in msgs if not m.compressed), {m.compression: m for m in msgs if m.compressed}


def body(plain, data: bytes, sys_flag: int = 0):
    return replace(plain, sys_flag=sys_flag, body=data)


def test_a_json_object_is_pretty_printed_and_a_plain_text_shown_as_it_is(sample):
    plain, _ = sample
    doc = {"a": 1, "b": [2, 3], "c": "x" * 100}
    p = body_preview(body(plain, json.dumps(doc).encode()))
    assert (p.kind, p.view, p.codec, p.truncated) == ("json", "json", None, False)
    assert p.text == json.dumps(doc, indent=2)
    p = body_preview(body(plain, b'{"a":1,"b":[2,3]}'))  # fits one line: as written
    assert (p.kind, p.view, p.text) == ("json", "text", '{"a":1,"b":[2,3]}')
    p = body_preview(body(plain, "héllo\nwörld\t!".encode()))
    assert (p.kind, p.view, p.text, p.shown, p.total) == ("text", "text", "héllo\nwörld\t!", 15, 15)
    assert p.describe() == "15 bytes"
    # looks like JSON but is none: text in auto, the reason when JSON was asked for
    p = body_preview(body(plain, b"{not json"))
    assert (p.kind, p.view, p.json_error) == ("text", "text", None)
    p = body_preview(body(plain, b"{not json"), "json")
    assert p.view == "text" and p.json_error and p.text == "{not json"


def test_bytes_that_are_no_text_are_a_hex_dump(sample):
    plain, _ = sample
    data = bytes(range(256)) + b"\xff\xfe"
    p = body_preview(body(plain, data), limit=64)
    assert (p.kind, p.view, p.shown, p.total, p.unit) == ("binary", "hex", 64, 258, "bytes")
    assert p.text.splitlines()[0] == "00000000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  ................"
    assert p.text.splitlines()[2] == "00000020  20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f   !\"#$%&'()*+,-./"
    assert len(p.hex_rows) == 4 and not has_terminal_controls(p.text.replace("\n", ""))
    assert p.truncation_note("--raw FILE") == "… truncated: showing 64 of 258 bytes (194 not shown; --raw FILE)"
    # a NUL or undecodable bytes make binary; an ESC in UTF-8 text keeps it text, escaped on a terminal
    assert body_preview(body(plain, b"abc\x00def")).kind == "binary"
    assert body_preview(body(plain, b"caf\xe9 au lait")).kind == "binary"
    p = body_preview(body(plain, b"red \x1b[31malert\x1b[0m\n"))
    assert p.kind == "text" and p.for_terminal() == "red \\x1b[31malert\\x1b[0m\n"
    # text asked for: undecodable bytes escaped on a terminal, U+FFFD on a page
    p = body_preview(body(plain, b"caf\xe9"), "text")
    assert (p.for_terminal(), p.for_html()) == ("caf\\xe9", "caf\ufffd")


def test_the_limit_cuts_at_a_character_and_says_how_much_is_left(sample):
    plain, _ = sample
    p = body_preview(body(plain, "é".encode() * 10), "text", limit=5)  # 5 bytes: two characters and half of one
    assert (p.text, p.shown, p.total) == ("éé", 4, 20)
    assert p.truncation_note() == "… truncated: showing 4 of 20 bytes (16 not shown)"
    p = body_preview(body(plain, json.dumps({"k": "v" * 100}).encode()), limit=10)
    assert p.view == "json" and p.unit == "characters" and len(p.text) == 10 and p.truncated


@pytest.mark.parametrize("codec", ["ZLIB", "LZ4", "ZSTD"])
def test_the_samples_compressed_bodies_are_previewed_decompressed(sample, codec):
    _, compressed = sample
    msg = compressed[codec]
    plain = decompress_body(msg)
    p = body_preview(msg, "text", limit=len(plain))
    assert (p.codec, p.decompress_error, p.length, p.kind) == (codec, None, len(plain), "json")
    assert p.text == plain.decode() and not p.truncated
    assert p.describe() == f"{codec}: {len(msg.body):,} bytes stored, {len(plain):,} decompressed"
    assert body_preview(msg).view == "json"
    line = body_line(msg, 30)
    assert line == plain[:30].decode() + "…"


def test_a_body_that_does_not_decompress_is_shown_as_stored_and_says_why(sample):
    plain, _ = sample
    garbled = b"\x78\x9c" + bytes(range(200, 240))
    p = body_preview(body(plain, garbled, ZLIB))
    assert p.codec == "ZLIB" and "does not decompress" in p.decompress_error
    assert (p.length, p.kind, p.view) == (len(garbled), "binary", "hex")
    assert "shown as stored" in p.describe()
    assert body_line(body(plain, garbled, ZLIB)) == f"<ZLIB body, does not decompress: {len(garbled)} bytes stored>"


def test_a_json_nested_past_the_recursion_limit_is_text_not_a_crash(sample):
    plain, _ = sample
    p = body_preview(body(plain, b"[" * 100_000), "json")
    assert p.view == "text" and p.json_error == "nested too deeply to pretty-print"


def test_body_line_is_one_escaped_line(sample):
    plain, _ = sample
    assert body_line(body(plain, b"a\nb\x1b]0;x\x07c"), 40) == "a\\nb\\x1b]0;x\\x07c"
    assert body_line(body(plain, b"x" * 50), 10) == "x" * 10 + "…"
    assert body_line(body(plain, b"")) == ""
    assert body_line(body(plain, b"\x00\x01\x02\xff" * 10)) == "<binary, 40 bytes> 00 01 02 ff 00 01 02 ff …"
    assert body_line(body(plain, b"\x00\xff")) == "<binary, 2 bytes> 00 ff"
    # a compressed body: only the start is decompressed, the rest never read
    big = b"y" * 10_000_000
    line = body_line(body(plain, zlib.compress(big), ZLIB), 20)
    assert line == "y" * 20 + "…"


def test_prefix_decompression_stops_at_the_limit(sample):
    plain, _ = sample
    msg = body(plain, zlib.compress(b"z" * 100_000), ZLIB)
    assert decompress_body(msg, 10, prefix=True) == b"z" * 10
    from inspector.engine import StoreError
    with pytest.raises(StoreError, match="exceeds"):
        decompress_body(msg, 10)
    with pytest.raises(StoreError, match="does not decompress"):  # cut within the prefix: still an error
        decompress_body(body(plain, zlib.compress(b"z" * 5)[:-3], ZLIB), 100, prefix=True)
