"""`messages STORE` in commitlog order on a store with inner-batch records: the record's own row, then its inner
messages (indented rows in the table, an ``inner_messages`` array in --json, the name ``show --json`` and the web
API use), on the bulk (columnar) path as well; in queue order a BatchCQ queue's rows are the inner messages."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import Message, MessageBatch, Store, message_view
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter

sys.path.insert(0, str(Path(__file__).parents[2]))
from batch_store import ATTRIBUTES, BATCH_TOPIC, T0, inner, write_batch_store  # noqa: E402


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory) -> Path:
    """40 plain records, an inner batch of 3, 40 plain records: the batch record sits inside a clean run, so
    the JSON listing meets it inside a columnar batch."""
    root = tmp_path_factory.mktemp("inner-listing") / "store"
    with StoreWriter(root, clock=lambda: T0, topic_attributes=ATTRIBUTES) as w:
        for i in range(40):
            w.append(MessageSpec("Plain", f"before {i}".encode(), store_timestamp=T0 + i))
        w.append(MessageSpec(BATCH_TOPIC, b"", batch=[inner(i) for i in range(3)], store_timestamp=T0 + 40))
        for i in range(40):
            w.append(MessageSpec("Plain", f"after {i}".encode(), store_timestamp=T0 + 41 + i))
    return root


def _lines(capsys, *argv: str) -> list[dict]:
    capsys.readouterr()
    assert main(["messages", *argv, "--json", "--limit", "1000"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_json_gives_the_inner_messages_of_a_record_inside_a_bulk_batch(mixed_store: Path, capsys) -> None:
    with Store(mixed_store) as store:
        batches = [b for b in store.commitlog.batches(None) if isinstance(b, MessageBatch)]
        assert any(int(f) & 0x80 for b in batches for f in b.column("sys_flag"))  # the bulk path meets it
        records = [e for e in store.entries() if isinstance(e, Message)]
    lines = _lines(capsys, str(mixed_store))
    assert len(lines) == 81
    (batch,) = [line for line in lines if "inner_messages" in line]
    # by hand (batch_store.inner): inner i has key{i}, tags Tag{i % 2}, body "inner body {i}", queue offset i
    assert [(m["queue_offset"], m["keys"], m["tags"], m["body_base64"]) for m in batch["inner_messages"]] == [
        (0, ["key0"], "Tag0", "aW5uZXIgYm9keSAw"), (1, ["key1"], "Tag1", "aW5uZXIgYm9keSAx"),
        (2, ["key2"], "Tag0", "aW5uZXIgYm9keSAy")]
    assert batch["inner_messages_error"] is None and batch["topic"] == BATCH_TOPIC and batch["position"] == records[40].position
    own = {k: v for k, v in batch.items() if k not in ("inner_messages", "inner_messages_error")}
    assert own == message_view(records[40])  # the record's own row is kept as it was
    assert [line for line in lines if "inner_messages" not in line] == [message_view(m) for m in records if m is not records[40]]


def test_the_table_indents_the_inner_messages(mixed_store: Path, capsys) -> None:
    capsys.readouterr()
    assert main(["messages", str(mixed_store), "--from", "0", "--limit", "45"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "└ #" in line]
    assert len(rows) == 3 and "key1" in rows[1] and "inner body 2" in rows[2]


def test_a_batch_topic_in_commitlog_order_and_a_body_that_does_not_split(tmp_path: Path, capsys) -> None:
    root = tmp_path / "s"
    results = write_batch_store(root)
    lines = _lines(capsys, str(root), "--topic", BATCH_TOPIC)
    assert [[m["queue_offset"] for m in line.get("inner_messages", [])] for line in lines] == [[0, 1, 2, 3], [4, 5, 6], []]
    # the second batch's first item says TOTALSIZE 5 (its fields take more): the record stays, the error is said
    # (the body CRC no longer matches either: the record comes through the careful walk, one Message)
    with Store(root) as store:
        msg = store.message_at(results[2].physical_offset)
    seg = next((root / "commitlog").iterdir())
    data = bytearray(seg.read_bytes())
    at = data.find(msg.body, msg.position)
    assert at > 0
    data[at:at + 4] = (5).to_bytes(4, "big")  # item 0's TOTALSIZE: 5, its fields take more
    seg.write_bytes(bytes(data))
    lines = _lines(capsys, str(root), "--topic", BATCH_TOPIC)
    assert lines[1]["inner_messages"] == [] and "total size 5" in lines[1]["inner_messages_error"]
    assert lines[0]["inner_messages"] and "inner_messages" not in lines[2]


def test_follow_gives_the_inner_messages_too(tmp_path: Path, capsys) -> None:
    root = tmp_path / "s"
    write_batch_store(root)
    follow = ["--follow", "--from", "0", "--idle-timeout", "0.05"]
    assert main(["messages", str(root), *follow, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [[m["queue_offset"] for m in line.get("inner_messages", [])] for line in lines if line["topic"] == BATCH_TOPIC] \
        == [[0, 1, 2, 3], [4, 5, 6], []]
    assert main(["messages", str(root), *follow]) == 0
    out = capsys.readouterr().out
    assert "└ #3" in out and "inner body 6" in out


def test_queue_order_rows_of_a_batch_queue_are_plain_messages(tmp_path: Path, capsys) -> None:
    """A BatchCQ queue in queue order gives one row per inner message: that row is one message, its body no
    batch to split again (it was: every row had an empty inner list and an inner error, while verify was clean)."""
    root = tmp_path / "s"
    write_batch_store(root)
    lines = _lines(capsys, str(root), "--topic", BATCH_TOPIC, "--queue", "0")
    assert [line["queue_offset"] for line in lines] == list(range(8))
    assert not [line for line in lines if {"inner", "inner_error", "inner_messages", "inner_messages_error"} & set(line)]
    assert [line["keys"] for line in lines] == [[f"key{i}"] for i in range(8)]
    capsys.readouterr()
    assert main(["messages", str(root), "--topic", BATCH_TOPIC, "--queue", "0"]) == 0
    out = capsys.readouterr().out
    assert "inner messages" not in out and "└ #" not in out and "inner body 6" in out


def test_show_and_messages_name_the_inner_list_alike(tmp_path: Path, capsys) -> None:
    root = tmp_path / "s"
    results = write_batch_store(root)
    capsys.readouterr()
    assert main(["show", str(root), str(results[1].physical_offset), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    (listed,) = [line for line in _lines(capsys, str(root)) if line["physical_offset"] == results[1].physical_offset]
    assert shown["inner_messages"] == listed["inner_messages"] and len(shown["inner_messages"]) == 4
    assert shown["inner_messages_error"] is listed["inner_messages_error"] is None
