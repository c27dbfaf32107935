"""Issue 27 item 1 and issue 35, on the command line: store text (bodies, keys, tags, topics, properties) and
store names (topic folders, DLedger member folders) reach the terminal escaped (``\\x1b``, ``\\x07``,
``\\u202e``), never raw; markup in them prints literally; piped stderr lines are not wrapped."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile_text import run, unsafe_in, write_store_text

from inspector.cli.output import json_safe_bytes
from inspector.engine import Message, Store

BODY = "\x1b[31mRED\x1b]0;PWNED\x07 [bold]x[/bold] [link=file:///etc/passwd]y[/link] \u202eabc"
KEY = "k\x1b[2Jx"
TAG = "t\x1b[1m"
TOPIC = "Topic\x9b2J"  # a C1 CSI in the topic (a folder name too)
PROPERTY = ("p\x1b[5m", "v\x07[red]r\x85")
FOLDER = "\x1b]0;PWNED\x07\x1b[2J"  # issue 35: retitles the terminal, then clears it


@pytest.fixture(scope="module")
def issue_store(tmp_path_factory) -> tuple[str, Message]:
    """The issue's store: one message with an ESC/OSC/BEL body, key k ESC[2J x and tag t ESC[1m."""
    folder = tmp_path_factory.mktemp("issue27")
    message = {"topic": TOPIC, "body": BODY, "keys": [KEY, "[bold]K"], "tags": TAG,
               "properties": {PROPERTY[0]: PROPERTY[1]}}
    code, _, err = write_store_text(folder, [message], group="g\x1b[8m")
    assert code == 0, err
    root = str(folder / "store")
    with Store(root) as s:
        msg = next(e for e in s.entries() if isinstance(e, Message))
    return root, msg


def clean_run(*argv: str, codes: tuple[int, ...] = (0,)) -> tuple[str, str]:
    code, out, err = run(*argv)
    assert code in codes, (argv, code, err)
    assert "Traceback" not in out + err
    assert not unsafe_in(out), (argv, unsafe_in(out)[:3])
    assert not unsafe_in(err), (argv, unsafe_in(err)[:3])
    return out, err


def test_show_prints_the_body_key_tag_and_properties_escaped(issue_store):
    root, msg = issue_store
    out, _ = clean_run("show", root, str(msg.physical_offset))
    assert "\\x1b[31mRED\\x1b]0;PWNED\\x07" in out  # the BEL shown, not dropped
    assert "\\u202eabc" in out
    assert "k\\x1b[2Jx" in out and "t\\x1b[1m" in out and "Topic\\x9b2J" in out
    assert "p\\x1b[5m" in out and "v\\x07[red]r\\x85" in out
    # markup in store text is text: shown as written, never a style or a hyperlink
    assert "[bold]x[/bold] [link=file:///etc/passwd]y[/link]" in out and "[bold]K" in out


def test_messages_prints_keys_and_tags_escaped(issue_store):
    root, _ = issue_store
    out, _ = clean_run("messages", root)
    assert "k\\x1b[2Jx" in out and "t\\x1b[1m" in out and "Topic\\x9b2J" in out
    out, _ = clean_run("messages", root, "--topic", TOPIC, "--queue", "0")
    assert "k\\x1b[2Jx" in out


def test_key_and_chain_print_the_key_escaped(issue_store):
    root, msg = issue_store
    out, _ = clean_run("key", root, TOPIC, KEY)
    assert "Topic\\x9b2J#k\\x1b[2Jx" in out and str(msg.physical_offset) in out
    out, _ = clean_run("chain", root, TOPIC, KEY)
    assert "Topic\\x9b2J#k\\x1b[2Jx" in out and "key matches" in out


def test_not_found_lines_quote_the_store_text_escaped(issue_store):
    root, _ = issue_store
    _, err = clean_run("key", root, TOPIC, "absent\x1b]0;X\x07", codes=(1,))
    assert err.startswith("rmq-inspect: not found:") and "absent\\x1b]0;X\\x07" in err
    _, err = clean_run("messages", root, "--queue", "\x1b[2J", codes=(2,))
    assert "\\x1b[2J" in err


def test_info_verify_hex_census_and_decode_id_are_clean(issue_store):
    root, msg = issue_store
    out, _ = clean_run("info", root)
    assert "Topic\\x9b2J" in out and "g\\x1b[8m" in out  # the topic, and the consumer group
    clean_run("verify", root)
    out, _ = clean_run("hex", root, str(msg.physical_offset), "--length", "400")
    assert "message Topic\\x9b2J" in out and "TOPIC = Topic\\x9b2J" in out  # the region label, the field
    clean_run("census", root)
    out, _ = clean_run("decode-id", msg.msg_id, "--store", root)
    assert f"yes, at {msg.physical_offset}" in out


def test_preflight_lists_cut_keys_escaped(issue_store, tmp_path):
    """An abnormal start whose recovery stops at the issue's record: its keys are listed as cut, escaped."""
    root, msg = issue_store
    copy = tmp_path / "store"
    shutil.copytree(root, copy)
    seg = sorted((copy / "commitlog").iterdir())[0]
    raw = bytearray(seg.read_bytes())
    raw[msg.physical_offset + 4:msg.physical_offset + 8] = b"\0\0\0\0"  # its magic code: recovery stops there
    seg.write_bytes(bytes(raw))
    (copy / "abort").write_bytes(b"")
    out, _ = clean_run("preflight", str(copy), codes=(4,))
    assert "Topic\\x9b2J" in out


def test_json_keeps_the_exact_text(issue_store):
    root, msg = issue_store
    _, out, _ = run("show", root, str(msg.physical_offset), "--json")
    view = json.loads(out)
    assert view["keys"][0] == KEY and view["tags"] == TAG and view["topic"] == TOPIC
    assert view["properties"][PROPERTY[0]] == PROPERTY[1]
    _, out, _ = run("messages", root, "--json")
    assert json.loads(out)["properties"][PROPERTY[0]] == PROPERTY[1]


def test_json_on_a_terminal_spells_c1_del_and_bidi_as_escapes():
    raw = json.dumps({"t": "a\x9b2J\x7f\u202eb\u2066", "plain": "中文…"}, ensure_ascii=False).encode()
    safe = json_safe_bytes(raw, to_terminal=True)
    assert safe == b'{"t": "a\\u009b2J\\u007f\\u202eb\\u2066", "plain": "' + "中文…".encode() + b'"}'
    assert json.loads(safe) == json.loads(raw)  # the same value
    assert json_safe_bytes(raw, to_terminal=False) is raw  # piped: the encoder's bytes
    assert json_safe_bytes(memoryview(raw), to_terminal=True) == safe


@pytest.fixture(scope="module")
def named_store(issue_store, tmp_path_factory) -> str:
    """The issue store with a topic folder named ESC ] 0 ; PWNED BEL ESC [ 2 J holding a copy of a queue."""
    root = tmp_path_factory.mktemp("issue35") / "store"
    shutil.copytree(issue_store[0], root)
    queue = next((root / "consumequeue").iterdir()) / "0"
    shutil.copytree(queue, root / "consumequeue" / FOLDER / "0")
    return str(root)


def test_a_topic_folder_name_is_escaped_in_info_verify_and_census(named_store):
    out, err = clean_run("info", named_store)
    assert "\\x1b]0;PWNED\\x07\\x1b[2J" in out + err
    out, _ = clean_run("verify", named_store, codes=(4,))  # its unit points at another topic's record
    assert "consumequeue/\\x1b]0;PWNED\\x07\\x1b[2J/0/" in out
    clean_run("census", named_store, codes=(0, 4))
    clean_run("preflight", named_store, codes=(0, 4))


def test_a_dledger_member_folder_name_is_escaped(tmp_path):
    code, _, err = run("write", str(tmp_path / "d"), str(_lines(tmp_path)), "--dledger")
    assert code == 0, err
    os.rename(tmp_path / "d" / "dledger-n0", tmp_path / "d" / f"dledger-{FOLDER}")
    root = str(tmp_path / "d")
    out, _ = clean_run("info", root)
    assert "dledger-\\x1b]0;PWNED\\x07\\x1b[2J" in out
    clean_run("verify", root, codes=(0, 4))
    out, _ = clean_run("census", root, codes=(0, 4))
    clean_run("messages", root)
    clean_run("hex", root, "0")


def _lines(folder: Path) -> Path:
    lines = folder / "m.jsonl"
    lines.write_text(json.dumps({"topic": "T", "body": BODY, "keys": [KEY], "tags": TAG}) + "\n", encoding="utf-8")
    return lines


def test_piped_stderr_lines_are_not_wrapped(issue_store, tmp_path):
    root = tmp_path / "torn"
    shutil.copytree(issue_store[0], root)
    segment = next((root / "commitlog").iterdir())
    os.truncate(segment, 200)  # the record is torn: a warning longer than 80 columns
    _, err = clean_run("messages", str(root))
    warning = next(line for line in err.splitlines() if "torn-record" in line)
    assert len(warning) > 80 and warning.startswith("error: commitlog/")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "markdown"])
def test_every_listing_format_on_stdout_is_escaped(issue_store, fmt):
    """--format csv/tsv/markdown on stdout: store text escaped as the table escapes it, whatever stdout is (jsonl
    is --json's JSON, escaped by construction; its C1 and bidi controls as \\uXXXX on a terminal only)."""
    root, msg = issue_store
    for argv in (("messages", root), ("grep", root, "k"), ("groups", root), ("group", root, "g\x1b[8m"),
                 ("key", root, TOPIC, KEY), ("chain", root, TOPIC, KEY), ("story", root, str(msg.physical_offset)),
                 ("info", root, "--rows", "topics"), ("census", root)):
        code, out, err = run(*argv, "--format", fmt)
        assert code == 0, (argv, err)
        assert "Traceback" not in out + err
        if fmt == "tsv":
            out = out.replace("\t", " ")  # the separator, not store text (a tab in a cell is \t)
        assert not unsafe_in(out), (argv, fmt, unsafe_in(out)[:3])
        assert not unsafe_in(err), (argv, fmt, unsafe_in(err)[:3])
