"""``messages --json | write`` (issue 32 item 4): the sample stores' lines written back give a store whose
``messages --json`` is identical, and with --keep-offsets byte-identical commitlog segments (DLedger: with
--dledger and the old store's --pre-dledger and terms, byte-identical data files too); a filtered export makes a
renumbered store, which --keep-offsets refuses (a gap is never filled); derived fields that disagree with the
record are refused naming the line and field; nothing is written on an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).parents[3]
DLEDGER_ARGS = ("--dledger", "--pre-dledger", "100", "--dledger-term", "120:2", "--dledger-term", "230:4")


def _export(cli, store: Path, tmp_path: Path, name: str = "export.jsonl") -> Path:
    code, out, _ = cli("messages", str(store), "--json", "--limit", "100000")
    assert code == 0 and out.count("\n") == 402
    path = tmp_path / name
    path.write_text(out)
    return path


def _files(root: Path, sub: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / sub).iterdir())}


@pytest.mark.parametrize(("sample", "extra", "logs"), [
    ("sample_store", (), ("commitlog",)),
    ("sample_store_dledger", DLEDGER_ARGS, ("commitlog", "dledger-n0/data")),
])
@pytest.mark.parametrize("keep", [False, True])
def test_round_trip_is_identical(cli, tmp_path, sample, extra, logs, keep):
    store = REPO / sample
    export = _export(cli, store, tmp_path)
    new = tmp_path / "new"
    code, out, err = cli("write", str(new), str(export), "--segment-size", "65536", *extra,
                         *(["--keep-offsets"] if keep else []))
    assert code == 0, err
    code, again, _ = cli("messages", str(new), "--json", "--limit", "100000")
    assert code == 0 and again == export.read_text()
    if keep:
        for sub in logs:
            assert _files(new, sub) == _files(store, sub)


def test_dledger_lines_without_dledger_make_a_plain_store(cli, tmp_path):
    export = _export(cli, REPO / "sample_store_dledger", tmp_path)
    code, _, err = cli("write", str(tmp_path / "plain"), str(export), "--segment-size", "65536", "--keep-offsets")
    assert code == 2 and "line 101: --keep-offsets: the record was DLedger entry 0 (term 1)" in err
    assert not (tmp_path / "plain").exists()
    code, _, _ = cli("write", str(tmp_path / "plain"), str(export), "--segment-size", "65536")
    assert code == 0 and not list((tmp_path / "plain").glob("dledger-*"))
    code, out, _ = cli("messages", str(tmp_path / "plain"), "--json", "--limit", "100000")
    lines = [json.loads(ln) for ln in out.splitlines()]
    assert len(lines) == 402 and not any("dledger" in ln for ln in lines)


def test_filtered_export_renumbers_and_keep_offsets_refuses_the_gap(cli, tmp_path):
    export = _export(cli, REPO / "sample_store", tmp_path)
    kept = [ln for ln in export.read_text().splitlines() if json.loads(ln)["topic"] == "OrderEvents"]
    filtered = tmp_path / "orders.jsonl"
    filtered.write_text("\n".join(kept) + "\n")
    code, _, err = cli("write", str(tmp_path / "keep"), str(filtered), "--segment-size", "65536", "--keep-offsets")
    one, two = json.loads(kept[0]), json.loads(kept[1])  # the first OrderEvents record is the log's first
    end = one["physical_offset"] + one["total_size"]
    assert code == 2 and f"line 2: --keep-offsets: physical_offset {two['physical_offset']}, but the record " \
        f"before ends at {end}" in err
    assert not (tmp_path / "keep").exists()
    code, _, err = cli("write", str(tmp_path / "orders"), str(filtered), "--segment-size", "65536")
    assert code == 0, err
    code, out, _ = cli("messages", str(tmp_path / "orders"), "--json", "--limit", "100000")
    got = [json.loads(ln) for ln in out.splitlines()]
    want = [json.loads(ln) for ln in kept]
    same = ("topic", "queue_id", "body_base64", "properties", "store_timestamp", "born_host", "sys_flag", "body_crc")
    assert [[g[k] for k in same] for g in got] == [[w[k] for k in same] for w in want]
    assert got[0]["physical_offset"] == 0
    assert {(g["queue_id"], g["queue_offset"]) for g in got} == {(w["queue_id"], w["queue_offset"]) for w in want}


@pytest.mark.parametrize(("change", "words"), [
    ({"tags": "other"}, "field tags is 'other', but the record as written has"),
    ({"body_length": 1}, "field body_length is 1"),
    ({"total_size": 1}, "field total_size is 1"),
    ({"body_crc_ok": False}, "field body_crc_ok is False"),
    ({"transaction": "COMMIT"}, "field transaction is 'COMMIT'"),
    ({"body_truncated": True}, "body_truncated is true"),
    ({"color": "red"}, "unknown record field(s): color"),
])
def test_a_derived_field_that_disagrees_is_refused(cli, tmp_path, change, words):
    export = _export(cli, REPO / "sample_store", tmp_path)
    first, *rest = export.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([first, json.dumps({**json.loads(rest[0]), **change}), *rest[1:3]]) + "\n")
    code, _, err = cli("write", str(tmp_path / "new"), str(bad))
    assert code == 2 and "line 2: " in err and words in err
    assert not (tmp_path / "new").exists()


def test_msg_id_checked_with_keep_offsets_ignored_without(cli, tmp_path):
    export = _export(cli, REPO / "sample_store", tmp_path)
    lines = export.read_text().splitlines()
    wrong = json.loads(lines[1])
    wrong["msg_id"] = "0A14000500002A9F0000000000000001"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], json.dumps(wrong)]) + "\n")
    code, _, err = cli("write", str(tmp_path / "k"), str(bad), "--keep-offsets")
    assert code == 2 and "line 2: field msg_id" in err
    code, _, _ = cli("write", str(tmp_path / "n"), str(bad))
    assert code == 0


def test_keep_offsets_refuses_a_message_line(cli, tmp_path):
    src = tmp_path / "m.jsonl"
    src.write_text('{"topic": "T", "body": "x"}\n')
    code, _, err = cli("write", str(tmp_path / "new"), str(src), "--keep-offsets")
    assert code == 2 and "line 1: --keep-offsets keeps a stored record's offsets" in err


def test_inner_batch_records_round_trip_and_their_inner_lines_are_refused(cli, tmp_path):
    from batch_store import BATCH_TOPIC, write_batch_store

    write_batch_store(tmp_path / "bs")
    code, out, _ = cli("messages", str(tmp_path / "bs"), "--json")
    export = tmp_path / "bs.jsonl"
    export.write_text(out)
    code, _, err = cli("write", str(tmp_path / "new"), str(export), "--batch-topic", BATCH_TOPIC, "--keep-offsets")
    assert code == 0, err
    assert cli("messages", str(tmp_path / "new"), "--json")[1] == out
    segment = "commitlog/00000000000000000000"
    assert (tmp_path / "new" / segment).read_bytes() == (tmp_path / "bs" / segment).read_bytes()
    code, out, _ = cli("messages", str(tmp_path / "bs"), "--topic", BATCH_TOPIC, "--queue", "0", "--json")
    export.write_text(out)
    code, _, err = cli("write", str(tmp_path / "inner"), str(export))
    assert code == 2 and "line 1: an inner message of an inner-batch record" in err


def test_multi_dispatched_records_round_trip_as_an_lmq_store(cli, tmp_path):
    from lmq_store import write_lmq_store

    write_lmq_store(tmp_path / "lmq")
    code, out, _ = cli("messages", str(tmp_path / "lmq"), "--json")
    export = tmp_path / "lmq.jsonl"
    export.write_text(out)
    code, _, err = cli("write", str(tmp_path / "new"), str(export), "--keep-offsets")
    assert code == 0, err
    assert cli("messages", str(tmp_path / "new"), "--json")[1] == out
    assert (tmp_path / "new" / "config" / "lmqConsumerOffset.json").exists()  # an enableLmq broker's store
    info = [json.loads(cli("info", str(root), "--json")[1])["topics"] for root in (tmp_path / "lmq", tmp_path / "new")]
    assert info[0] == info[1]  # the LMQ queues too


def test_an_aged_log_cannot_keep_its_offsets_but_renumbers(cli, tmp_path):
    export = _export_all(cli, REPO / "sample_store_aged", tmp_path)
    code, _, err = cli("write", str(tmp_path / "k"), str(export), "--segment-size", "65536", "--keep-offsets")
    assert code == 2 and "line 1: --keep-offsets: the first record is at physical_offset 65536" in err
    assert not (tmp_path / "k").exists()
    code, out, err = cli("write", str(tmp_path / "n"), str(export), "--segment-size", "65536")
    assert code == 0 and "wrote 241 message(s)" in out


def _export_all(cli, store: Path, tmp_path: Path) -> Path:
    code, out, _ = cli("messages", str(store), "--json", "--limit", "100000")
    path = tmp_path / "export.jsonl"
    path.write_text(out)
    return path
