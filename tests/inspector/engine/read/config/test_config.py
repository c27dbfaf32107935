"""config/*.json through ``load_config``: real broker files, and the broker's ``.bak`` fallback (spec §7.1)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.engine.read.config.config import load_config
from inspector.engine.read.store.store import Store
from parsers.fastjson import loads

SHAOXUBAO = "Shaoxubao_rocketmq-study/c4dcaab0cdafbf7a2e984e1997730955f21da476/store"
LIUSHANGQING = "liushangqing9803_rocketmq-tech/dc2815847989bdc77fe879d88ae4c84d2ba283e2/store"


def real_config_stores(realdata: Path) -> list[Path]:
    return sorted(p.parent for p in realdata.glob("*/*/store/config"))


def codes(config) -> list[tuple[str, str, str]]:
    return [(p.file, p.code, p.severity) for p in config.problems]


@pytest.fixture
def shaoxubao(tmp_path: Path, realdata: Path) -> Path:
    """A writable copy of a real broker's config directory (it has topics.json and topics.json.bak)."""
    shutil.copytree(realdata / SHAOXUBAO / "config", tmp_path / "config")
    return tmp_path


def test_every_real_config_parses(realdata: Path) -> None:
    stores = real_config_stores(realdata)
    assert len(stores) == 8
    for root in stores:
        config = load_config(root)
        on_disk = sorted(p.name for p in (root / "config").glob("*.json"))
        assert sorted(config.files) == on_disk, root
        assert config.problems == [], root
        for name, cf in config.files.items():
            assert (cf.file, cf.used_backup) == (f"config/{name}", False)
            assert cf.value == loads((root / "config" / name).read_bytes())


def test_real_backups_parse_and_agree_in_shape(realdata: Path) -> None:
    backups = sorted(realdata.glob("*/*/store/config/topics.json.bak"))
    assert len(backups) == 4
    for bak in backups:
        assert isinstance(loads(bak.read_bytes())["topicConfigTable"], dict)


def test_real_consumer_offsets_have_int_queue_ids(realdata: Path) -> None:
    offsets = load_config(realdata / LIUSHANGQING).consumer_offsets
    assert offsets[("lsqTopic1", "lsqGroup")] == {0: 8, 1: 15, 2: 14, 3: 12}
    assert offsets[("%RETRY%lsqGroup", "lsqGroup")] == {0: 0}
    assert all(type(q) is int and type(o) is int for queues in offsets.values() for q, o in queues.items())
    shaoxubao = load_config(realdata / SHAOXUBAO)
    assert shaoxubao.consumer_offsets[("TopicTest", "please_rename_unique_group_name_4")] == {0: 250, 1: 250, 2: 250,
                                                                                              3: 250}
    assert shaoxubao.delay_offsets == {}
    assert "TopicTest" in shaoxubao.topics and shaoxubao.topics["TopicTest"]["readQueueNums"] == 4


def test_config_cut_in_half_falls_back_to_bak(shaoxubao: Path) -> None:
    main = shaoxubao / "config" / "topics.json"
    data = main.read_bytes()
    main.write_bytes(data[: len(data) // 2])
    config = load_config(shaoxubao)
    cf = config.files["topics.json"]
    assert (cf.file, cf.used_backup) == ("config/topics.json.bak", True)
    assert cf.value == loads((shaoxubao / "config" / "topics.json.bak").read_bytes())
    assert "TopicTest" in config.topics
    assert codes(config) == [("config/topics.json", "bad-config", "error"),
                             ("config/topics.json", "config-from-backup", "warning")]
    assert "not valid fastjson" in config.problems[0].reason


def test_config_and_bak_both_bad(shaoxubao: Path) -> None:
    for name in ("topics.json", "topics.json.bak"):
        path = shaoxubao / "config" / name
        path.write_bytes(path.read_bytes()[:100])
    config = load_config(shaoxubao)
    cf = config.files["topics.json"]
    assert (cf.file, cf.used_backup, cf.value) == (None, False, None)
    assert config.topics == {}
    assert codes(config) == [("config/topics.json", "bad-config", "error"),
                             ("config/topics.json.bak", "bad-config-backup", "error")]
    assert config.consumer_offsets  # the other files are unaffected


def test_empty_config_falls_back_to_bak(shaoxubao: Path) -> None:
    (shaoxubao / "config" / "topics.json").write_bytes(b"")
    config = load_config(shaoxubao)
    assert config.files["topics.json"].used_backup
    assert codes(config) == [("config/topics.json", "bad-config", "error"),
                             ("config/topics.json", "config-from-backup", "warning")]
    assert config.problems[0].reason == "file is empty"


def test_missing_config_uses_bak(shaoxubao: Path) -> None:
    (shaoxubao / "config" / "topics.json").unlink()
    config = load_config(shaoxubao)
    assert config.files["topics.json"].file == "config/topics.json.bak"
    assert codes(config) == [("config/topics.json", "config-from-backup", "warning")]


def test_bad_bak_next_to_a_good_config_is_a_warning(shaoxubao: Path) -> None:
    (shaoxubao / "config" / "topics.json.bak").write_bytes(b"{\"topicConfigTable\":{")
    config = load_config(shaoxubao)
    assert config.files["topics.json"].file == "config/topics.json"
    assert codes(config) == [("config/topics.json.bak", "bad-config-backup", "warning")]


def test_no_config_directory(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.files == {} and config.problems == []
    assert config.topics == {} and config.consumer_offsets == {} and config.delay_offsets == {}


def test_unexpected_shapes_do_not_break_the_accessors(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "topics.json").write_text("[1,2]")
    (tmp_path / "config" / "consumerOffset.json").write_text(
        '{"offsetTable":{"noAtSign":{0:1},"T@g":{0:5,1:"x",2:7},"U@h":[1]}}')
    (tmp_path / "config" / "delayOffset.json").write_text('{"offsetTable":{1:100,"2":200}}')
    (tmp_path / "config" / "extra.json").write_text('{"a":1}')
    config = load_config(tmp_path)
    assert config.problems == []
    assert config.topics == {}
    assert config.consumer_offsets == {("T", "g"): {0: 5, 2: 7}}
    assert config.delay_offsets == {1: 100, 2: 200}
    assert config.files["extra.json"].value == {"a": 1}

def test_non_numeric_queue_id_in_consumer_offsets_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "consumerOffset.json").write_text('{"offsetTable":{"T@g":{0:5,"x":6}}}')
    assert load_config(tmp_path).consumer_offsets == {("T", "g"): {0: 5}}


def test_store_reports_config_problems(shaoxubao: Path) -> None:
    (shaoxubao / "config" / "consumerOffset.json").write_bytes(b"{")
    with Store(shaoxubao) as store:
        assert [(p.file, p.code) for p in store.problems()] == [("config/consumerOffset.json", "bad-config")]
        assert store.consumer_lag() == []
        assert "TopicTest" in store.topics()


def test_lmq_offset_entries_the_broker_never_reads_are_left_out_and_said(tmp_path: Path) -> None:
    """LmqConsumerOffsetManager reads lmqOffsetTable only for an LMQ group (found by the mutation fuzzer: a
    TopicA@g entry there overrode offsetTable's offset, a key without '@' vanished without a word)."""
    from inspector.engine.read.config.config import shape_problems

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "lmqConsumerOffset.json").write_text(
        '{"offsetTable":{"TopicA@g":{0:1}},"lmqOffsetTable":{"%LMQ%x@%LMQ%x":2,"TopicA@g":7,"%LMQ%y":3,'
        '"%LMQ%z@%LMQ%z":"two"}}')
    config = load_config(tmp_path)
    assert config.lmq_consumer_offsets == {("TopicA", "g"): {0: 1}, ("%LMQ%x", "%LMQ%x"): {0: 2}}
    said = [p.reason for p in shape_problems(config) if p.code == "bad-config-entry"]
    assert len(said) == 3 and all("lmqOffsetTable entry" in r for r in said)
    assert {r.split()[2] for r in said} == {"TopicA@g:7", "%LMQ%y:3", "%LMQ%z@%LMQ%z:two"}
