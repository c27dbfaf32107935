"""Consumer offsets from where the broker keeps them (spec §7.3, §7.8, part 2 §17): lmqConsumerOffset.json,
the RocksDB config databases (v1 and v2), consumerOffset.json; the source named, disagreements said."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from external_tools import import_or_skip

from inspector.cli.main import main
from inspector.engine import Store, store_overview
from inspector.engine.model.broker_config import parse_broker_config
from tests.offsets_support import offsets_store, v1_offsets_db, v2_offset_key, write_rocksdb

import_or_skip("rocksdict")


def _lag(store: Store) -> dict:
    return {(r["topic"], r["group"], r["queue_id"]): (r["consumer_offset"], r["lag"]) for r in store.consumer_lag()}


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes() if p.is_file() else None)
            for p in sorted(root.rglob("*"))}


def test_lmq_file_is_used_with_both_tables(tmp_path):
    root = offsets_store(tmp_path)
    (root / "config" / "lmqConsumerOffset.json").write_text(
        '{"offsetTable":{"TopicTest@g1":{0:2}},"lmqOffsetTable":{"%LMQ%x@%LMQ%x":1}}')
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:4}}}')
    with Store(root) as store:
        offsets = store.consumer_offsets()
        assert offsets.source == "config/lmqConsumerOffset.json"
        assert offsets.label() == "offsets from config/lmqConsumerOffset.json"
        lag = _lag(store)
        assert lag[("TopicTest", "g1", 0)] == (2, 3)
        assert ("%LMQ%x", "%LMQ%x", 0) in lag  # lmqOffsetTable: queue 0
        (p,) = [p for p in store.problems() if p.code == "offsets-disagree"]
        assert p.file == "config/consumerOffset.json" and "TopicTest@g1 queue 0: 4 here, 2 there" in p.reason


def test_broker_config_decides(tmp_path):
    root = offsets_store(tmp_path)
    (root / "config" / "lmqConsumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:2}}}')
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:4}}}')
    off = parse_broker_config("enableLmq=false\n", "broker.conf")
    with Store(root, broker_config=off) as store:
        assert store.consumer_offsets().source == "config/consumerOffset.json"
        assert _lag(store)[("TopicTest", "g1", 0)] == (4, 1)
    on = parse_broker_config("enableLmq=true\n", "broker.conf")
    (root / "config" / "lmqConsumerOffset.json").unlink()
    with Store(root, broker_config=on) as store:
        (p,) = [p for p in store.problems() if p.code == "offsets-source-missing"]
        assert "enableLmq=true in broker.conf" in p.reason and p.file == "config/lmqConsumerOffset.json"
        assert store.consumer_lag() == []


def test_rocksdb_v1_offsets_win_and_are_named(tmp_path):
    root = offsets_store(tmp_path)
    (root / "config" / "consumerOffset.json").write_text('{"offsetTable":{"TopicTest@g1":{0:4}}}')
    # RocksDBConsumerOffsetManager.putWriteBatch: JSON.toJSONBytes(wrapper, BrowserCompatible)
    v1_offsets_db(root, {"TopicTest@g1": b'{"offsetTable":{0:1}}', "TopicTest@g2": b'{"offsetTable":{"0":"5"}}'})
    before = _tree(root)
    with Store(root) as store:
        data = store_overview(store)
    assert data["offsets"]["source"] == "config/consumerOffsets"
    assert {(c["group"], c["consumer_offset"], c["lag"]) for c in data["consumer_groups"]} == {("g1", 1, 4), ("g2", 5, 0)}
    (db,) = data["config_databases"]
    assert db["rel"] == "config/consumerOffsets" and db["tables"] == {"default": 2, "forbidden": 0, "kvDataVersion": 1}
    assert '"counter":3' in db["data_version"]
    assert any(p["code"] == "offsets-disagree" for p in data["problems"])
    assert _tree(root) == before  # read through a private snapshot: no LOG, no LOCK, nothing changed


def test_rocksdb_v2_offsets_and_tables(tmp_path):
    root = offsets_store(tmp_path)
    topic_key = b"\x01\x00\x03\x02" + len(b"TopicTest").to_bytes(2, "big") + b"TopicTest"
    version_key = b"\x01\x00\x01\x01data_version"
    write_rocksdb(root / "config" / "rdb", {
        v2_offset_key("g1", "TopicTest", 0): (3).to_bytes(8, "big"),
        version_key: (0).to_bytes(8, "big") + (1_700_000_000_000).to_bytes(8, "big") + (7).to_bytes(8, "big"),
        topic_key: b"\x01" + json.dumps({"topicName": "TopicTest"}).encode(),
    })
    with Store(root) as store:
        assert store.consumer_offsets().source == "config/rdb"
        assert _lag(store) == {("TopicTest", "g1", 0): (3, 2)}
        data = store_overview(store)
    (db,) = data["config_databases"]
    assert db["tables"] == {"consumerOffset": 1, "dataVersion": 1, "topic": 1}


@pytest.mark.parametrize("damage", ["bad-current", "no-manifest", "unreadable"])
def test_unreadable_rocksdb_is_one_line_exit_3_and_nothing_written(tmp_path, damage, capsys):
    root = offsets_store(tmp_path)
    v1_offsets_db(root, {"TopicTest@g1": b'{"offsetTable":{0:1}}'})
    db = root / "config" / "consumerOffsets"
    if damage == "bad-current":
        (db / "CURRENT").write_text("MANIFEST-999999\n")
    elif damage == "no-manifest":
        for p in db.glob("MANIFEST-*"):
            p.unlink()
    else:
        if os.geteuid() == 0:
            pytest.skip("needs a user other than root: root reads a file chmod 0 forbids")
        (db / "CURRENT").chmod(0)
    before = _tree(root) if damage != "unreadable" else None
    # in-process: main() is what the installed command runs (its exit codes and stderr are held equal to a real
    # process for every command in tests/hardening/test_corruption_commands.py), without a fresh interpreter each
    for command, code in (("info", 3), ("verify", 4)):
        returned = main([command, str(root)])
        out, err = capsys.readouterr()
        assert returned == code, err
        assert "Traceback" not in err + out
        if command == "info":
            line = err.strip().splitlines()[-1]  # after the findings, the one line of the exit code
            assert "rmq-inspect-rocksdb" not in err  # the private snapshot is not named
            assert line.startswith("rmq-inspect: config/consumerOffsets: ") and "RocksDB" in line
        else:
            assert "config/consumerOffsets" in out and "unreadable-offsets" in out
    if before is not None:
        assert _tree(root) == before


def test_topics_come_from_the_rocksdb_database_the_broker_keeps(tmp_path):
    root = offsets_store(tmp_path)
    # RocksDBTopicConfigManager: key = topic name, value = JSON.toJSONBytes(topicConfig, BrowserCompatible)
    write_rocksdb(root / "config" / "topics", {
        b"RocksOnly": b'{"attributes":{"queue.type":"BatchCQ"},"order":false,"perm":6,"readQueueNums":8,'
                      b'"topicFilterType":"SINGLE_TAG","topicName":"RocksOnly","topicSysFlag":0,"writeQueueNums":8}'},
                  {"kvDataVersion": {b"kvDataVersionKey": b'{"counter":1,"stateVersion":0,"timestamp":1}'}})
    with Store(root) as store:
        assert set(store.config.topics) == {"RocksOnly"} and store.config.topics_source == "config/topics"
        assert store.batch_topics() == {"RocksOnly"}
        data = store_overview(store)
    assert data["topics_source"] == "config/topics"
    assert {t["topic"]: t["configured"] for t in data["topics"]} == {"RocksOnly": True, "TopicTest": False}
    plain = parse_broker_config("storeType=default\n", "broker.conf")
    with Store(root, broker_config=plain) as store:  # the broker says files: topics.json it is
        assert "TopicTest" in store.config.topics and store.config.topics_source == "config/topics.json"


def test_v2_topics_table(tmp_path):
    root = offsets_store(tmp_path)
    name = b"V2Topic"
    write_rocksdb(root / "config" / "rdb", {
        b"\x01\x00\x03\x02" + len(name).to_bytes(2, "big") + name: b"\x01" + b'{"topicName":"V2Topic","perm":6}'})
    with Store(root) as store:
        assert store.config.topics == {"V2Topic": {"topicName": "V2Topic", "perm": 6}}
