"""The broker's settings on stores our writer makes: a non-default delay table inferred from SCHEDULE_TOPIC_XXXX
(verify clean without flags, and with --broker-config), a tampered unit still caught, and a commitlog split
over two folders read exactly as the original."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest
from split_commitlog import split_commitlog, split_under_root

from inspector.cli.main import main
from inspector.engine import Geometry, Store, load_broker_config, verify
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.read.config.settings import delay_text, infer_delay_levels

# the table of the 4.9.8 broker in issue 18
TABLE = "1s 2s 3s 4s 5s 6s 7s 8s 9s 10s 20s 30s 1m 2m 3m 4m 1h 2h"
T0 = 1_760_000_000_000
SCHEDULE = "SCHEDULE_TOPIC_XXXX"


def _write(root: Path, table: str = TABLE) -> None:
    """Ordinary and delayed messages on 8 KiB segments: every level used, level 3 by 20 units (more than the
    sample), the others by 2 or 3; one DELAY past the table is clamped to level 18 (as the broker does)."""
    geometry = Geometry(segment_size=8192, cq_file_size=400, index_slots=64, index_items=256, delay_levels=table)
    with StoreWriter(root, geometry, clock=lambda: T0 + 10_000_000) as w:
        t = T0
        for i in range(80):
            t += 1000
            level = (0, 3, 1 + (i // 4) % 18, 1 + (i // 4 + 9) % 18)[i % 4]
            w.append(MessageSpec("Orders", f"order {i}".encode(), queue_id=i % 2, tags="A", keys=[f"k{i}"],
                                 delay_level=level, store_timestamp=t, born_timestamp=t - 1))
        w.append(MessageSpec("Orders", b"far", delay_level=40, store_timestamp=t + 1000, born_timestamp=t))


@pytest.fixture(scope="module")
def delayed_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("delay") / "store"
    _write(root)
    return root


def _conf(path: Path, **values: str) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    return path


def _json(capsys, argv: list[str]) -> tuple[int, list]:
    code = main(argv)
    out = capsys.readouterr().out
    try:
        return code, [json.loads(out)]  # one document (info, verify)
    except ValueError:
        return code, [json.loads(line) for line in out.splitlines() if line.strip()]  # JSON Lines


def _unit_path(root: Path, level: int) -> Path:
    (path,) = sorted((root / "consumequeue" / SCHEDULE / str(level - 1)).iterdir())[:1]
    return path


def test_delay_text_spells_what_parse_reads() -> None:
    assert [delay_text(ms) for ms in (1000, 90_000, 120_000, 3_600_000, 86_400_000, 1500, 0)] == \
        ["1s", "90s", "2m", "1h", "1d", None, None]


def test_the_table_is_inferred_and_verify_is_clean_without_flags(delayed_store: Path, capsys) -> None:
    with Store(delayed_store) as store:
        table = store.delay_table()
        assert (table.text, table.source, table.problems) == (TABLE, "inferred", ())
        assert table.sources == ("inferred",) * 18
        assert verify(store).problems == ()
        # the default table (what verify assumed before) gives the false errors of issue 18
        wrong = verify(store, Geometry(segment_size=8192, cq_file_size=400))
        assert wrong.errors and {p.code for p in wrong.errors} == {"cq-mismatch"}
    assert main(["verify", str(delayed_store)]) == 0
    capsys.readouterr()
    code, (info,) = _json(capsys, ["info", str(delayed_store), "--json"])
    rows = {r["name"]: r for r in info["settings"]}
    assert rows["messageDelayLevel"]["source"] == "inferred" and rows["messageDelayLevel"]["value"] == TABLE
    assert rows["mappedFileSizeCommitLog"]["source"] == "inferred"


def test_the_inference_reads_a_bounded_sample(delayed_store: Path, monkeypatch) -> None:
    with Store(delayed_store) as store:
        seen = []
        real = store.message_at
        monkeypatch.setattr(store, "message_at", lambda offset: seen.append(offset) or real(offset))
        infer_delay_levels(store)
        counts = [store.queue(SCHEDULE, q).info().message_count for q in range(18)]
    assert counts[2] > 6 and len(seen) == sum(min(n, 6) for n in counts)  # at most 3 + 3 units a level


def test_the_broker_config_and_the_flag_give_the_table(delayed_store: Path, tmp_path: Path, capsys) -> None:
    conf = _conf(tmp_path / "broker.conf", messageDelayLevel=TABLE, maxIndexNum="256")
    assert main(["verify", str(delayed_store), "--broker-config", str(conf)]) == 0
    capsys.readouterr()
    code, (info,) = _json(capsys, ["info", str(delayed_store), "--json", "--broker-config", str(conf),
                                   "--index-slots", "64"])
    rows = {r["name"]: r for r in info["settings"]}
    assert (rows["messageDelayLevel"]["source"], rows["messageDelayLevel"]["detail"]) == \
        ("broker.conf", f"{conf} line 1")
    assert (rows["maxIndexNum"]["source"], rows["maxHashSlotNum"]["source"]) == ("broker.conf", "flag")
    # a flag wins over the file: the default table on the command line brings the false errors back
    default = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"
    assert main(["verify", str(delayed_store), "--broker-config", str(conf), "--delay-levels", default]) == 4
    capsys.readouterr()


def _tamper(path: Path, unit: int, delta: int) -> None:
    raw = bytearray(path.read_bytes())
    pos = unit * 20 + 12
    struct.pack_into(">q", raw, pos, struct.unpack_from(">q", raw, pos)[0] + delta)
    path.write_bytes(bytes(raw))


def test_a_unit_that_disagrees_with_the_inferred_table_is_caught(delayed_store: Path, tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(delayed_store, root)
    path = _unit_path(root, 3)  # level 3: 24 units, the sample reads 0-2 and 21-23
    _tamper(path, 10, 7000)
    with Store(root) as store:
        assert store.delay_table().text == TABLE and not store.delay_table().problems
        report = verify(store)
    assert [(p.file, p.offset, p.code) for p in report.errors] == \
        [(f"consumequeue/{SCHEDULE}/2/{path.name}", 200, "cq-mismatch")]


def test_sampled_units_that_disagree_are_a_finding_not_a_guess(delayed_store: Path, tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(delayed_store, root)
    _tamper(_unit_path(root, 3), 0, 7000)
    with Store(root) as store:
        table = store.delay_table()
        (finding,) = table.problems
        assert finding.code == "delay-level-conflict" and "delay level 3" in finding.reason
        assert table.sources[2] == "default" and table.text.split()[2] == "10s"  # the default's third level
        report = verify(store)
    assert "delay-level-conflict" in {p.code for p in report.problems}
    assert report.errors  # level 3's units checked against the default: every one disagrees


def _without_paths(value):
    """``value`` with the fields that name a segment's folder dropped, at any depth (they differ by design)."""
    if isinstance(value, dict):
        return {k: _without_paths(v) for k, v in value.items() if k not in ("file", "store", "settings", "start_segment")}
    if isinstance(value, list):
        return [_without_paths(v) for v in value]
    return value


def test_a_commitlog_split_over_two_folders_reads_as_the_original(delayed_store: Path, tmp_path: Path,
                                                                   capsys) -> None:
    root, conf, _ = split_commitlog(delayed_store, tmp_path)
    with Store(root, broker_config=load_broker_config(conf)) as store:
        assert len(store.segments) == 3 and [s.start_offset for s in store.segments] == \
            [int(p.name) for p in sorted((delayed_store / "commitlog").iterdir())]
        assert store.segments[1].file == str(tmp_path / "disk2" / "commitlog" / store.segments[1].name)
    for argv in (["info", "--json"], ["messages", "--json", "--limit", "1000"], ["verify", "--json"],
                 ["messages", "--json", "--topic", SCHEDULE, "--queue", "2"]):
        code, want = _json(capsys, [argv[0], str(delayed_store), *argv[1:]])
        got_code, got = _json(capsys, [argv[0], str(root), *argv[1:], "--broker-config", str(conf)])
        assert (got_code, _without_paths(got)) == (code, _without_paths(want)), argv
        assert got and code == 0
    code, (info,) = _json(capsys, ["info", str(root), "--json", "--broker-config", str(conf)])
    rows = {r["name"]: r for r in info["settings"]}
    assert rows["storePathCommitLog"]["source"] == "broker.conf" and "disk2" in rows["storePathCommitLog"]["value"]
    # without the file the store has no commitlog at all
    assert main(["messages", str(root), "--json"]) in (0, 1)
    assert capsys.readouterr().out == ""


def test_commitlog_folders_under_the_configured_root_are_taken_under_the_store(delayed_store: Path,
                                                                              tmp_path: Path) -> None:
    root, conf, segs = split_under_root(delayed_store, tmp_path)
    with Store(root, broker_config=load_broker_config(conf)) as store:
        assert store.commitlog.directory == "log0, log1"
        assert store.segments[-1].file == f"log1/{segs[-1].name}"
        assert verify(store).problems == ()


def test_a_missing_commitlog_folder_and_a_duplicate_segment(delayed_store: Path, tmp_path: Path, capsys) -> None:
    conf = _conf(tmp_path / "b.conf", storePathCommitLog=f"{delayed_store / 'commitlog'},{tmp_path / 'nowhere'}")
    assert main(["info", str(delayed_store), "--broker-config", str(conf)]) == 2
    err = capsys.readouterr().err
    assert f"{conf}: line 1: commitlog folder" in err and "nowhere" in err
    copy = tmp_path / "copy"
    shutil.copytree(delayed_store / "commitlog", copy)
    conf = _conf(tmp_path / "c.conf", storePathCommitLog=f"{delayed_store / 'commitlog'},{copy}")
    with Store(delayed_store, broker_config=load_broker_config(conf)) as store:
        codes = {p.code for p in store.commitlog.problems}
        assert codes == {"duplicate-segment"}


def test_follow_and_rebuild_read_the_split_commitlog(delayed_store: Path, tmp_path: Path, capsys) -> None:
    root, conf, _ = split_commitlog(delayed_store, tmp_path)
    follow = ["--follow", "--from", "0", "--idle-timeout", "0.05", "--json"]
    _, want = _json(capsys, ["messages", str(delayed_store), *follow])
    _, got = _json(capsys, ["messages", str(root), *follow, "--broker-config", str(conf)])
    assert len(want) == 81 and _without_paths(got) == _without_paths(want)
    assert main(["rebuild", str(delayed_store), "--out", str(tmp_path / "r1"), "--json"]) == 0
    assert main(["rebuild", str(root), "--out", str(tmp_path / "r2"), "--json", "--broker-config", str(conf)]) == 0
    capsys.readouterr()
    queues = sorted(p.relative_to(tmp_path / "r1") for p in (tmp_path / "r1" / "consumequeue").rglob("*") if p.is_file())
    assert queues and all((tmp_path / "r1" / q).read_bytes() == (tmp_path / "r2" / q).read_bytes() for q in queues)
    # the rebuilt delay queues carry the inferred table's tagsCodes: the same bytes as the broker's (writer's)
    delayed = [q for q in queues if SCHEDULE in str(q)]
    assert len(delayed) >= 18 and all((tmp_path / "r1" / q).read_bytes() == (delayed_store / q).read_bytes()
                                      for q in delayed)


def test_decode_id_finds_a_message_in_a_split_commitlog(delayed_store: Path, tmp_path: Path, capsys) -> None:
    root, conf, _ = split_commitlog(delayed_store, tmp_path)
    with Store(delayed_store) as store:
        msg = store.message_at(store.segments[1].start_offset)
    code, (readings,) = _json(capsys, ["decode-id", msg.msg_id, "--store", str(root), "--broker-config", str(conf),
                                       "--json"])
    assert code == 0 and readings["offset_msg_id"]["found"] is True
    assert readings["physical_offset"] == msg.physical_offset > 0
    assert main(["decode-id", msg.msg_id, "--broker-config", str(conf)]) == 2
    capsys.readouterr()


def test_a_short_table_and_a_clamped_delay(tmp_path: Path) -> None:
    """A broker with 3 levels parks DELAY=10 at level 3 (and rewrites DELAY to 3): the levels used are inferred,
    the rest keep the default, and every unit verifies."""
    root = tmp_path / "store"
    with StoreWriter(root, Geometry(segment_size=8192, delay_levels="2s 4s 6s")) as w:
        for i, level in enumerate((1, 2, 3, 10, 10, 2)):
            w.append(MessageSpec("T", b"x", delay_level=level, store_timestamp=T0 + i, born_timestamp=T0))
    with Store(root) as store:
        table = store.delay_table()
        assert table.text.split()[:4] == ["2s", "4s", "6s", "30s"] and table.sources[:4] == ("inferred",) * 3 + ("default",)
        assert table.detail == f"levels 1, 2, 3 from 6 unit(s) of {SCHEDULE}; the others: the default"
        assert verify(store).problems == ()


def test_a_queue_id_past_any_table_is_a_finding_not_a_huge_table(delayed_store: Path, tmp_path: Path) -> None:
    root = tmp_path / "store"
    shutil.copytree(delayed_store, root)
    shutil.copytree(root / "consumequeue" / SCHEDULE / "2", root / "consumequeue" / SCHEDULE / "2147483646")
    with Store(root) as store:
        table = store.delay_table()
        assert table.text == TABLE and [p.code for p in table.problems] == ["delay-level-unlikely"]


def test_write_takes_the_broker_config(tmp_path: Path, capsys) -> None:
    conf = _conf(tmp_path / "broker.conf", messageDelayLevel="7s 14s", mappedFileSizeCommitLog="4096")
    lines = tmp_path / "in.jsonl"
    lines.write_text("".join(json.dumps({"topic": "T", "body": f"m{i}", "delay_level": 1 + i % 2,
                                         "store_timestamp": T0 + i}) + "\n" for i in range(40)))
    assert main(["write", str(tmp_path / "s"), str(lines), "--broker-config", str(conf), "--json"]) == 0
    capsys.readouterr()
    assert {p.stat().st_size for p in (tmp_path / "s" / "commitlog").iterdir()} == {4096}
    with Store(tmp_path / "s") as store:
        assert store.delay_table().text.split()[:2] == ["7s", "14s"]
        assert verify(store).problems == ()
