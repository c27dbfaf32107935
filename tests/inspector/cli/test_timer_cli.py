"""``rmq-inspect timer`` on a timer store laid out by hand: units, --wheel, --slot, --summary, partial output,
exit codes (1: an empty slot or no timer store; 2: a slot past the wheel)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2]))
from timer_store import T0, make_timer_store  # noqa: E402

SLOT5 = (T0 // 1000 + 5) % 1_209_600


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return make_timer_store(tmp_path_factory.mktemp("timer-cli") / "store")


def test_units_as_json_lines(root, cli) -> None:
    code, out, err = cli("timer", str(root), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and err == ""
    assert [r["offset"] for r in rows] == [0, 52, 104, 186]
    assert [r["topic"] for r in rows] == ["Orders", "Orders", "Pay", "Pay"]
    assert rows[3]["magic_names"] == ["DEFAULT", "DELETE"] and rows[3]["file"] == "timerlog/00000000000000000186"
    assert {"offset", "commitlog_offset", "size", "delay_time", "magic", "prev_pos", "write_date",
            "delivery_date", "record"} <= set(rows[0])


def test_limit_and_from_say_when_partial(root, cli) -> None:
    code, out, err = cli("timer", str(root), "--json", "--limit", "2")
    assert code == 0 and len(out.splitlines()) == 2
    assert "stopped at --limit 2: 2 of 4 unit(s) shown, more follow (timer-log offset 104: --from 104 continues)" in err
    code, out, err = cli("timer", str(root), "--wheel", "--json", "--limit", "1")
    assert len(out.splitlines()) == 1 and f"--from {SLOT5 + 4} continues" in err
    code, out, err = cli("timer", str(root), "--json", "--from", "100")
    assert [json.loads(line)["offset"] for line in out.splitlines()] == [104, 186] and err == ""


def test_wheel_slot_and_summary(root, cli) -> None:
    code, out, _ = cli("timer", str(root), "--wheel", "--json")
    assert code == 0 and [json.loads(line)["num"] for line in out.splitlines()] == [0, 1]
    code, out, _ = cli("timer", str(root), "--slot", str(SLOT5), "--json")
    chain = json.loads(out)
    assert code == 0 and [h["offset"] for h in chain["chain"]] == [104, 0]
    assert (chain["num"], chain["counted"], chain["num_matches"]) == (0, 2, False)
    code, out, _ = cli("timer", str(root), "--summary", "--json")
    summary = json.loads(out)
    assert summary["units"] == 4 and summary["pending"] == 1 and summary["timermetrics"] == {"Orders": 1, "Pay": 0}
    code, out, _ = cli("timer", str(root), "--slot", str(SLOT5))
    assert code == 0 and "does not match" in out


def test_exit_codes(root, tmp_path, cli) -> None:
    assert cli("timer", str(root), "--slot", "7")[0] == 1
    code, _, err = cli("timer", str(root), "--slot", "1209600")
    assert code == 2 and "timer wheel slot" in err
    (tmp_path / "checkpoint").write_bytes(bytes(4096))
    code, _, err = cli("timer", str(tmp_path))
    assert code == 1 and "no timer store here" in err and "Traceback" not in err


def test_a_writer_store_with_records(tmp_path, cli) -> None:
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter

    t = T0 + 500
    with StoreWriter(tmp_path / "s", timer_file_size=52 * 20 + 16) as w:
        w.append(MessageSpec("Orders", b"x", deliver_ms=t + 9000, store_timestamp=t, unique_key="[bold]key[/]"))
    code, out, err = cli("timer", str(tmp_path / "s"))
    assert code == 0 and "[bold]key[/]" in out and "TIMER_OUT_MS=" in out  # store text shown as is, not markup
    code, out, _ = cli("timer", str(tmp_path / "s"), "--json")
    row = json.loads(out)
    assert row["record"]["unique_key"] == "[bold]key[/]" and row["record"]["timer_out_ms"] == 1_700_000_009_000
    assert row["record_problem"] is None and row["pending"] is True
