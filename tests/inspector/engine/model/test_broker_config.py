"""broker.conf as java.util.Properties reads it: separators, comments, continuations, escapes; typed keys held to
their ranges; a malformed line is exit 2 naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.engine import BadInput, load_broker_config
from inspector.engine.model.broker_config import parse_broker_config

HAND_WRITTEN = """\
# a broker.conf as operators write them
brokerClusterName = DefaultCluster
brokerName=broker-a
! Properties also take '!' comments
brokerRole : ASYNC_MASTER
storePathRootDir /data/rocketmq/store
storePathCommitLog=/data/rocketmq/store/commitlog,\\
    /data2/rocketmq/commitlog
messageDelayLevel=1s 2s 3s 4s 5s 6s 7s 8s 9s 10s \\
                  20s 30s 1m 2m 3m 4m 1h 2h
mappedFileSizeCommitLog=1073741824
mappedFileSizeConsumeQueue: 6000000
maxHashSlotNum=5000000
maxIndexNum = 20000000
# a comment ending in a backslash does not continue \\
enableLmq=TRUE
storeType=defaultRocksDB
timerWheelEnable=false
timerPrecisionMs=500
enableDLegerCommitLog=false
some\\ key\\=with\\:escapes=caf\\u00e9\\tok
unknownKeyBrokersHaveHundredsOf=42
flagWithoutValue
"""


def test_a_hand_written_file() -> None:
    c = parse_broker_config(HAND_WRITTEN, "broker.conf")
    assert c.brokerRole == "ASYNC_MASTER"
    assert c.storePathRootDir == "/data/rocketmq/store"
    assert c.commitlog_paths() == ["/data/rocketmq/store/commitlog", "/data2/rocketmq/commitlog"]
    assert c.messageDelayLevel == "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 20s 30s 1m 2m 3m 4m 1h 2h"
    assert (c.mappedFileSizeCommitLog, c.mappedFileSizeConsumeQueue) == (1 << 30, 6_000_000)
    assert (c.maxHashSlotNum, c.maxIndexNum) == (5_000_000, 20_000_000)
    assert (c.enableLmq, c.storeType, c.timerWheelEnable, c.timerPrecisionMs) == (True, "defaultRocksDB", False, 500)
    assert c.enableDLegerCommitLog is False
    assert c.properties["some key=with:escapes"] == "café\tok"
    assert c.properties["unknownKeyBrokersHaveHundredsOf"] == "42"
    assert c.properties["flagWithoutValue"] == ""
    assert "a comment" not in " ".join(c.properties)
    assert c.lines["messageDelayLevel"] == 9 and c.lines["maxIndexNum"] == 14
    assert c.geometry_values() == {"segment_size": 1 << 30, "cq_file_size": 6_000_000, "index_slots": 5_000_000,
                                   "index_items": 20_000_000, "delay_levels": c.messageDelayLevel}


def test_crlf_and_a_continuation_at_the_end() -> None:
    c = parse_broker_config("maxIndexNum=40\r\nbrokerRole=SLAVE\r\nreadOnlyCommitLogStorePaths=/ro\\", "b.conf")
    assert (c.maxIndexNum, c.brokerRole, c.commitlog_paths()) == (40, "SLAVE", ["/ro"])


@pytest.mark.parametrize(("text", "line", "words"), [
    ("a=1\nmappedFileSizeCommitLog=1g\n", 2, "mappedFileSizeCommitLog must be a commitlog segment size"),
    ("mappedFileSizeConsumeQueue=6000001\n", 1, "a multiple of 20"),
    ("# c\n\nmaxHashSlotNum=0x10\n", 3, "maxHashSlotNum must be a hash slot count, a decimal integer"),
    ("maxIndexNum=-1\n", 1, "maxIndexNum"),
    ("messageDelayLevel=1s 5x\n", 1, "bad delay level '5x'"),
    ("messageDelayLevel=\n", 1, "messageDelayLevel"),
    ("enableLmq=yes\n", 1, "enableLmq must be true or false"),
    ("brokerRole=MASTER\n", 1, "brokerRole must be one of"),
    ("x=1\ny=\\u12\n", 2, "malformed \\uxxxx escape"),
])
def test_a_malformed_line_names_the_file_and_line(text: str, line: int, words: str) -> None:
    with pytest.raises(BadInput) as e:
        parse_broker_config(text, "conf/broker.conf")
    assert str(e.value).startswith(f"conf/broker.conf: line {line}: ")
    assert words in str(e.value)


def test_the_cli_refuses_a_malformed_file_with_exit_2(tmp_path: Path, capsys) -> None:
    conf = tmp_path / "broker.conf"
    conf.write_text("brokerName=a\nmaxIndexNum=lots\n")
    for argv in (["info", "sample_store"], ["verify", "sample_store"], ["messages", "sample_store"],
                 ["tui", "sample_store"], ["web", "sample_store"]):
        assert main([*argv, "--broker-config", str(conf)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{conf}: line 2: maxIndexNum must be" in err and "Traceback" not in err
    assert main(["info", "sample_store", "--broker-config", str(tmp_path / "missing.conf")]) == 2
    assert "missing.conf: cannot read the broker configuration" in capsys.readouterr().err


def test_latin1_like_java(tmp_path: Path) -> None:
    conf = tmp_path / "broker.conf"
    conf.write_bytes(b"brokerName=caf\xe9\n")
    assert load_broker_config(conf).properties["brokerName"] == "café"
