"""Bodies shown readably on the command line (issue 27 item 2): ``show`` decompresses per the sysFlag and prints
pretty JSON, text or a hex dump, cut with a note; ``messages`` rows give a one-line preview; ``show --raw``
writes the exact stored bytes to a new file or a pipe, never to a terminal. JSON output is unchanged."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import Store, message_view

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "sample_store"
ZLIB_OFFSET = 60781  # the sample's ZLIB record: a 13,991-byte JSON inventory snapshot, 1,704 bytes stored
BINARY = bytes(range(256)) + b"\xff\xfe\x00\x1b[2J"


def no_controls(text: str) -> bool:
    return not any((ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) < 0xA0 for c in text)


@pytest.fixture(scope="module")
def binary_store(tmp_path_factory) -> Path:
    """A store written by ``rmq-inspect write`` whose first body is bytes that are no text, the second a long
    text with an escape sequence in it."""
    base = tmp_path_factory.mktemp("bodies")
    lines = [{"topic": "Blobs", "body_base64": base64.b64encode(BINARY).decode(), "keys": "blob-1"},
             {"topic": "Logs", "body": "line one\n\x1b]0;pwned\x07 line two\n" + "x" * 5000}]
    spec = base / "messages.jsonl"
    spec.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert main(["write", str(base / "store"), str(spec)]) == 0
    return base / "store"


def test_show_prints_the_zlib_body_decompressed_as_pretty_json(cli):
    code, out, _ = cli("show", str(SAMPLE), str(ZLIB_OFFSET))
    assert code == 0
    assert "ZLIB: 1,704 bytes stored, 13,991 decompressed; JSON" in out
    assert '"type": "SNAPSHOT",' in out and '"warehouse": "WH-BER-1",' in out
    assert no_controls(out)
    assert "\ufffd" not in out  # no compressed byte shown as a broken character
    # cut at 4,096 characters of the pretty JSON, and the note says how to see the rest
    assert "truncated: showing 4,096 of 22,015 characters" in out and "--body-limit 22015" in out
    code, out, _ = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--body-limit", "22015")
    assert code == 0 and "truncated" not in out and out.count('"sku": ') == 160


def test_show_json_is_unchanged(cli):
    with Store(SAMPLE) as store:
        msg = store.message_at(ZLIB_OFFSET)
        expected = message_view(msg, decompress=False)
        expected_decompressed = message_view(msg, decompress=True)
    code, out, _ = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--json")
    assert code == 0 and json.loads(out) == expected
    code, out, _ = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--json", "--decompress")
    assert code == 0 and json.loads(out) == expected_decompressed


def test_a_binary_body_is_a_hex_dump_and_a_text_body_escaped(binary_store, cli):
    code, out, _ = cli("show", str(binary_store), "0")
    assert code == 0 and f"body ({len(BINARY):,} bytes; binary: hex dump)" in out
    assert "00000000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f  ................" in out
    assert "00000100  ff fe 00 1b 5b 32 4a" in out and no_controls(out)
    code, out, _ = cli("show", str(binary_store), "0", "--body-limit", "32")
    assert "00000010  10 11" in out and "00000020" not in out
    assert f"showing 32 of {len(BINARY)} bytes ({len(BINARY) - 32} not shown" in out
    with Store(binary_store) as store:
        text_offset = [m.physical_offset for m in store.entries(0) if hasattr(m, "body")][1]
    code, out, _ = cli("show", str(binary_store), str(text_offset))
    assert code == 0 and "line one" in out and "\\x1b]0;pwned\\x07 line two" in out and no_controls(out)
    assert "truncated: showing 4,096 of" in out


def _cells(table: str) -> str:
    """A table's text without borders and spaces: a cell folded over lines reads on."""
    return "".join(table.split()).replace("│", "")


def test_messages_rows_preview_the_body_on_one_line(binary_store, cli):
    code, out, _ = cli("messages", str(SAMPLE), "--from", str(ZLIB_OFFSET), "--limit", "1")
    assert code == 0 and '{"type":"SNAPSHOT","warehous' in _cells(out) and no_controls(out)
    code, out, _ = cli("messages", str(binary_store))
    assert code == 0 and no_controls(out)
    assert f"<binary,{len(BINARY)}bytes>000102030405" in _cells(out)
    assert "lineone\\n\\x1b]0;pwned\\x07linetwo" in _cells(out)


def _record_bytes(root: Path, offset: int) -> bytes:
    with Store(root) as store:
        msg = store.message_at(offset)
    data = (root / msg.file).read_bytes()[msg.position:msg.position + msg.total_size]
    return data, len(msg.body)


def test_raw_writes_the_exact_stored_bytes_to_a_new_file(tmp_path, cli):
    record, length = _record_bytes(SAMPLE, ZLIB_OFFSET)
    target = tmp_path / "body.zlib"
    code, out, _ = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--raw", str(target))
    raw = target.read_bytes()
    assert code == 0 and len(raw) == length == 1704 and raw in record  # the bytes of the record, as stored
    assert "as stored, ZLIB-compressed" in out and "1,704 bytes" in out
    assert json.loads(zlib.decompress(raw))["type"] == "SNAPSHOT"
    plain = tmp_path / "body.json"
    code, out, _ = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--raw", str(plain), "--decompress")
    assert code == 0 and plain.read_bytes() == zlib.decompress(raw) and "ZLIB-decompressed" in out
    # never over an existing file (it could be one of the store's own), never with --json
    code, _, err = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--raw", str(target))
    assert code == 2 and "exists" in err and target.read_bytes() == raw
    code, _, err = cli("show", str(SAMPLE), str(ZLIB_OFFSET), "--raw", str(tmp_path / "x"), "--json")
    assert code == 2 and "--json" in err and not (tmp_path / "x").exists()


def _show_raw_to(stdout) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "inspector.cli.main", "show", str(SAMPLE), str(ZLIB_OFFSET),
                           "--raw", "-"], stdout=stdout, stderr=subprocess.PIPE, env=env, timeout=60, cwd=REPO)


def test_raw_to_stdout_only_when_it_is_no_terminal():
    record, length = _record_bytes(SAMPLE, ZLIB_OFFSET)
    piped = _show_raw_to(subprocess.PIPE)
    assert piped.returncode == 0 and len(piped.stdout) == length and piped.stdout in record
    assert zlib.decompress(piped.stdout).startswith(b'{"type":"SNAPSHOT"')
    leader, follower = os.openpty()
    try:
        on_tty = _show_raw_to(follower)
        os.close(follower)
        shown = b""
        while True:  # whatever reached the terminal (nothing is expected)
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal has no writer left
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
    assert on_tty.returncode == 2 and shown == b""
    err = on_tty.stderr.decode()
    assert err.count("\n") == 1 and "terminal" in err and "Traceback" not in err
