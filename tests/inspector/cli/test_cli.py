"""The rmq-inspect command in both output modes, exit codes, and the installed console script."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

from external_tools import CONSOLE_SCRIPT, need

from inspector.engine import Store

SPEC_MSG_ID = "0A6C73D900002A9F0000000000004010"
SAMPLE_STORE = Path(__file__).parents[3] / "sample_store"


def test_decode_id_gives_the_spec_vector(cli):
    code, out, _ = cli("decode-id", SPEC_MSG_ID, "--json")
    doc = json.loads(out)
    assert code == 0
    assert (doc["kind"], doc["ip"], doc["port"], doc["offset"]) == ("offset_msg_id", "10.108.115.217", 10911, 16400)
    assert doc["unique_key"]["kind"] == "unique_key"
    assert doc["unique_key"]["counter"] == 0x4010


def test_decode_id_table_and_bad_input(cli):
    code, out, _ = cli("decode-id", SPEC_MSG_ID)
    assert code == 0 and "10.108.115.217:10911" in out and "16400" in out
    code, _, err = cli("decode-id", "not-an-id")
    assert code == 2 and "hex" in err and "Traceback" not in err


def test_decode_id_against_a_store_says_which_reading_finds_a_message(pristine_store, cli):
    root, facts = pristine_store
    with Store(root) as s:
        msg = s.message_at(facts["offsets"][5])
    code, out, _ = cli("decode-id", msg.msg_id, "--store", str(root), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["found_as"] == ["offset_msg_id"] and doc["physical_offset"] == msg.physical_offset
    code, out, _ = cli("decode-id", msg.unique_key, "--store", str(root), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["found_as"] == ["unique_key"] and doc["physical_offset"] == msg.physical_offset
    assert doc["unique_key"]["ip"] == "10.0.0.7" and doc["unique_key"]["pid"] == 4242
    code, _, _ = cli("decode-id", "0A0000070000000000000000000FFFFF", "--store", str(root), "--json")
    assert code == 1


def test_decode_id_of_a_unique_key_found_in_the_store_is_that_reading_dated_by_the_message(cli):
    """issue 27: a UNIQ_KEY found in the store is kind unique_key at the top (not an offset msgId with port
    1194797587), the offset reading kept beside it, and its time is the message's born time, not today's month."""
    key = "0A14010B47372A139A555EA0DB42002D"  # the sample store's first message (born 2025-09-19 09:00:00.194)
    code, out, _ = cli("decode-id", key, "--store", str(SAMPLE_STORE), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["found_as"] == ["unique_key"] and doc["physical_offset"] == 0
    assert (doc["kind"], doc["ip"], doc["pid"], doc["counter"]) == ("unique_key", "10.20.1.11", 18231, 45)
    assert "port" not in doc and doc["offset_msg_id"]["port"] == 1194797587 and doc["offset_msg_id"]["found"] is False
    assert doc["approximate_timestamp"] == doc["unique_key"]["approximate_timestamp"] == 1758272400194
    code, out, _ = cli("decode-id", key, "--store", str(SAMPLE_STORE))
    assert code == 0 and "2025-09-19" in out and "born" in out
    code, out, _ = cli("decode-id", key, "--json")  # no store: the reading is a guess from today's month
    assert json.loads(out)["kind"] == "offset_msg_id" and "found_as" not in json.loads(out)


def test_info_json(pristine_store, cli):
    root, facts = pristine_store
    code, out, _ = cli("info", str(root), "--json")
    doc = json.loads(out)
    assert code == 0
    assert [s["name"] for s in doc["segments"]] == ["00000000000000000000", "00000000000000004096",
                                                    "00000000000000008192"]
    assert doc["segments"][0]["blank_position"] is not None and doc["segments"][0]["valid_end"] == \
        doc["segments"][0]["blank_position"]
    assert doc["max_physical_offset"] > facts["last"]
    topics = {t["topic"]: t for t in doc["topics"]}
    assert {"OrderEvents", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC"} <= set(topics)
    assert len(topics["OrderEvents"]["queues"]) == 4
    assert len(doc["index_files"]) >= 2 and doc["index_files"][0]["index_count"] == 64
    assert doc["clean_shutdown"] is True and doc["problems"] == []
    assert {"group": "order_consumer", "topic": "OrderEvents", "queue_id": 0, "consumer_offset": 3} .items() <= \
        doc["consumer_groups"][0].items()
    assert doc["checkpoint"]["physic_msg_timestamp"] > 0


def test_info_table(pristine_store, cli):
    root, _ = pristine_store
    code, out, _ = cli("info", str(root))
    assert code == 0
    for text in ("CommitLog segments", "00000000000000004096", "OrderEvents", "Index files", "clean (no abort file)"):
        assert text in out


def test_bare_store_argument_shows_the_overview_when_not_on_a_terminal(pristine_store, cli):
    root, _ = pristine_store
    code, out, _ = cli(str(root))  # stdout is captured, not a TTY: the overview instead of the UI
    assert code == 0 and "CommitLog segments" in out


def test_messages_json_lines_in_commitlog_order(pristine_store, cli):
    root, facts = pristine_store
    code, out, _ = cli("messages", str(root), "--json", "--limit", "5")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [m["physical_offset"] for m in lines] == facts["offsets"][:5]
    m = lines[0]
    for field in ("physical_offset", "total_size", "magic_version", "body_crc", "body_crc_ok", "queue_id", "flag",
                  "queue_offset", "sys_flag", "born_timestamp", "born_host", "store_timestamp", "store_host",
                  "reconsume_times", "prepared_transaction_offset", "topic", "properties", "tags", "keys",
                  "unique_key", "msg_id", "body_length", "body_base64"):
        assert field in m
    assert m["keys"] == ["order-1000", "cust-0"] and m["tags"] == "created"
    assert base64.b64decode(m["body_base64"]) == b'{"n":0}'
    assert m["store_host"] == "192.168.0.10:10911" and m["msg_id"] == m["msg_id"].upper()


def test_a_listing_cut_by_its_limit_says_so_and_where_to_go_on(pristine_store, cli):
    """A partial answer says so: stdout stays JSON Lines, stderr names the next message's --from."""
    root, facts = pristine_store
    code, out, err = cli("messages", str(root), "--json", "--limit", "5")
    assert code == 0 and len(out.splitlines()) == 5
    assert f"stopped at --limit 5: more messages follow (physical offset {facts['offsets'][5]}" in err
    code, out, err = cli("messages", str(root), "--json", "--from", str(facts["offsets"][5]), "--limit", "1")
    assert json.loads(out)["physical_offset"] == facts["offsets"][5]
    code, out, err = cli("messages", str(root), "--limit", "2", "--topic", "OrderEvents", "--queue", "0")
    assert code == 0 and "2 message(s); stopped at --limit 2: more messages follow (queue offset 2: --from 2" in out
    with Store(root) as store:
        offsets = [m.physical_offset for m in store.entries() if hasattr(m, "topic")]
    code, out, err = cli("messages", str(root), "--json", "--limit", str(len(offsets)))
    assert len(out.splitlines()) == len(offsets) and "stopped at --limit" not in err  # nothing left out, no note
    code, out, err = cli("messages", str(root), "--json", "--limit", str(len(offsets) - 1))
    assert f"physical offset {offsets[-1]}" in err


def test_messages_in_queue_order_from_a_queue_offset(pristine_store, cli):
    root, _ = pristine_store
    code, out, _ = cli("messages", str(root), "--topic", "OrderEvents", "--queue", "0", "--from", "1", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [m["queue_offset"] for m in lines] == [1, 2, 3]
    assert {m["topic"] for m in lines} == {"OrderEvents"} and {m["queue_id"] for m in lines} == {0}


def test_messages_by_topic_in_commitlog_order_and_table(pristine_store, cli):
    root, _ = pristine_store
    code, out, _ = cli("messages", str(root), "--topic", "PaymentEvents", "--limit", "3")
    assert code == 0 and out.count("PaymentEvents") == 3 and "3 message(s)" in out
    code, _, err = cli("messages", str(root), "--queue", "1")
    assert code == 2 and "--topic" in err


def test_show_by_offset_msg_id_and_unique_key(pristine_store, cli):
    root, facts = pristine_store
    off = facts["offsets"][9]
    code, out, _ = cli("show", str(root), str(off), "--json")
    by_offset = json.loads(out)
    assert code == 0 and by_offset["physical_offset"] == off
    for ref in (by_offset["msg_id"], by_offset["unique_key"]):
        code, out, _ = cli("show", str(root), ref, "--json")
        assert code == 0 and json.loads(out)["physical_offset"] == off
    code, out, _ = cli("show", str(root), str(off))
    assert code == 0 and "properties" in out and '{"n":9}' in out


def test_show_errors_are_one_line(pristine_store, cli):
    root, facts = pristine_store
    code, _, err = cli("show", str(root), str(facts["offsets"][1] + 3))
    assert code == 3 and err.count("\n") == 1 and "commitlog/00000000000000000000" in err
    code, _, err = cli("show", str(root), "99999999")
    assert code == 1 and "Traceback" not in err
    code, _, err = cli("show", str(root / "nope"), "0")
    assert code == 2 and "nope" in err


def test_key_and_chain(pristine_store, cli):
    root, facts = pristine_store
    expected = sorted(facts["keys"][("OrderEvents", "cust-0")])
    code, out, _ = cli("key", str(root), "OrderEvents", "cust-0", "--json")
    doc = json.loads(out)
    assert code == 0 and sorted(m["physical_offset"] for m in doc["messages"]) == expected
    code, out, _ = cli("chain", str(root), "OrderEvents", "cust-0", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["key_string"] == "OrderEvents#cust-0"
    walked = [i for f in doc["files"] for i in f["items"] if i["key_matches"]]
    assert sorted(i["phy_offset"] for i in walked) == expected
    for f in doc["files"]:
        assert f["slot"] == doc["key_hash"] % 16
        numbers = [i["item"] for i in f["items"]]
        assert numbers == sorted(numbers, reverse=True)  # newest first, links point to older items
    code, out, _ = cli("chain", str(root), "OrderEvents", "cust-0")
    assert code == 0 and "key matches" in out
    code, out, err = cli("key", str(root), "OrderEvents", "no-such-key")
    assert code == 1 and "not found" in err and out == ""  # the not-found line alone, no empty table (issue 27)


def test_key_time_window(pristine_store, cli):
    root, facts = pristine_store
    t0 = 1_758_272_400_000
    code, out, _ = cli("key", str(root), "OrderEvents", "cust-0", "--begin", str(t0 + 20_000), "--json")
    doc = json.loads(out)
    assert code == 0 and all(m["store_timestamp"] >= t0 + 20_000 for m in doc["messages"])
    assert len(doc["messages"]) < len(facts["keys"][("OrderEvents", "cust-0")])


def test_hex_marks_boundaries_and_fields(pristine_store, cli):
    root, facts = pristine_store
    code, out, _ = cli("hex", str(root), str(facts["offsets"][1] - 16), "--length", "64", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["length"] == 64
    kinds = [(r["kind"], r["start"]) for r in doc["regions"]]
    assert ("message", facts["offsets"][0]) in kinds and ("message", facts["offsets"][1]) in kinds
    second = next(r for r in doc["regions"] if r["start"] == facts["offsets"][1])
    assert [f["name"] for f in second["fields"]][:2] == ["TOTALSIZE", "MAGICCODE"]
    code, out, _ = cli("hex", str(root), "4000", "--length", "96")
    assert code == 0 and "BLANK" in out and "MAGICCODE" in out


def test_write_verify_rebuild_round_trip(tmp_path, cli):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps(m) for m in [
        {"topic": "T", "queue_id": 1, "tags": "a", "keys": ["k1", "k2"], "body": "one", "store_timestamp": 1000},
        {"topic": "T", "queue_id": 1, "tags": "b", "keys": ["k1"], "body": "two", "store_timestamp": 2000},
    ]) + "\n")
    code, out, _ = cli("write", str(tmp_path / "s"), str(src), "--segment-size", "4096", "--json")
    assert code == 0 and json.loads(out)["messages"] == 2
    assert cli("verify", str(tmp_path / "s"))[0] == 0
    code, out, _ = cli("rebuild", str(tmp_path / "s"), "--out", str(tmp_path / "r"), "--json")
    assert code == 0 and json.loads(out)["cq_units"] == 2
    assert (tmp_path / "r/consumequeue/T/1/00000000000000000000").read_bytes() == \
        (tmp_path / "s/consumequeue/T/1/00000000000000000000").read_bytes()
    code, _, err = cli("rebuild", str(tmp_path / "s"))
    assert code == 2 and "--out" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"topic": "T", "nonsense": 1}\n')
    code, _, err = cli("write", str(tmp_path / "s2"), str(bad))
    assert code == 2 and "line 1" in err and "nonsense" in err


def test_argument_errors_exit_2(cli):
    assert cli("hex")[0] == 2
    assert cli("messages", "x", "--limit", "ten")[0] == 2
    assert cli()[0] == 2


def test_installed_console_script(pristine_store):
    command = need(CONSOLE_SCRIPT)
    root, _ = pristine_store
    proc = subprocess.run([command, "info", str(root), "--json"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and json.loads(proc.stdout)["segment_size"] == 4096
    proc = subprocess.run([sys.executable, "-m", "inspector.cli.main", "decode-id", SPEC_MSG_ID, "--json"],
                          capture_output=True, text=True, check=False)
    assert json.loads(proc.stdout)["offset"] == 16400


def _damage(root, facts):
    """A zeroed region, a bad magic and a torn tail, as in issue 2's 'done means'."""
    segs = sorted((root / "commitlog").iterdir())
    first = bytearray(segs[0].read_bytes())
    a, b = facts["offsets"][2], facts["offsets"][3]
    first[a:b] = bytes(b - a)  # zeroed region: record 2 gone
    c = facts["offsets"][5]
    first[c + 4 : c + 8] = b"\x12\x34\x56\x78"  # bad magic on record 5
    segs[0].write_bytes(bytes(first))
    last = bytearray(segs[-1].read_bytes())
    pos = facts["last"] - int(segs[-1].name)
    last[pos + 30 : pos + 90] = bytes(60)  # torn tail
    segs[-1].write_bytes(bytes(last))
    return segs, a, c, pos


def test_info_and_messages_report_damage_with_file_and_offset_and_carry_on(store_copy, cli):
    root, facts = store_copy
    segs, zeroed, bad_magic, torn = _damage(root, facts)
    code, out, _ = cli("info", str(root), "--json")
    doc = json.loads(out)
    assert code == 0
    found = {(p["file"], p["offset"], p["code"]) for p in doc["problems"]}
    seg0, segn = f"commitlog/{segs[0].name}", f"commitlog/{segs[-1].name}"
    assert (seg0, zeroed, "zeroed-region") in found
    assert (seg0, bad_magic, "bad-magic") in found
    assert any(f == segn and o == torn for f, o, _ in found)
    assert doc["recovery"]["end_offset"] == zeroed  # the broker's recovery would truncate at the first damage
    code, out, err = cli("messages", str(root), "--json", "--limit", "1000")
    offsets = [json.loads(line)["physical_offset"] for line in out.splitlines()]
    assert code == 0
    assert facts["offsets"][2] not in offsets and facts["offsets"][5] not in offsets
    assert facts["offsets"][6] in offsets and facts["offsets"][-1] in offsets  # carried on past the damage
    assert f"{seg0} @ {zeroed}" in err and f"{seg0} @ {bad_magic}" in err and f"{segn} @ {torn}" in err
    code, out, err = cli("info", str(root))
    assert code == 0 and "zeroed-region" in err and "recovery (normal) would end the log at" in out


def test_verify_table_shows_the_first_findings_of_each_kind_and_counts_the_rest(capsys, cli):
    """An index read with the wrong slot count gives one finding per item: the table shows the first 20 of the
    kind and says how many more --json lists (the JSON report keeps every one)."""
    from pathlib import Path

    from inspector.cli.main import main as cli
    from inspector.cli.maintenance import TABLE_ROWS_PER_CODE

    sample = Path(__file__).parents[3] / "sample_store"
    assert cli(["verify", str(sample), "--index-slots", "2353", "--json"]) == 4
    report = json.loads(capsys.readouterr().out)
    by_code: dict[str, int] = {}
    for p in report["problems"]:
        by_code[p["code"]] = by_code.get(p["code"], 0) + 1
    many = {c: n for c, n in by_code.items() if n > TABLE_ROWS_PER_CODE}
    assert many, by_code
    assert cli(["verify", str(sample), "--index-slots", "2353"]) == 4
    out = capsys.readouterr().out
    for code, n in many.items():
        assert f"... and {n - TABLE_ROWS_PER_CODE:,} more {code} finding(s) not shown" in out
    assert out.count("\n") < 40 * (len(by_code) + 3)
