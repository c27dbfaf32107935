"""``messages`` and ``grep`` with ``--since`` / ``--until`` on the sample store: the same records as a plain filter
of the whole listing by store time (the first at or after --since, the last before --until), in commitlog and in
queue order; the refusals (a time without a date, since after until, --follow with a window) are exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from hostile_text import run

SAMPLE = Path(__file__).parents[3] / "sample_store"
SINCE, UNTIL = 1_758_289_689_632, 1_758_294_000_000  # a record's store time (113348) and a time between records
SINCE_ISO = "2025-09-19T13:48:09.632Z"


def _lines(*argv: str) -> list[dict]:
    code, out, err = run(*argv)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_messages_in_a_window_are_the_listing_cut_to_it():
    every = _lines("messages", str(SAMPLE), "--json", "--limit", "100000")
    windowed = _lines("messages", str(SAMPLE), "--json", "--limit", "100000", "--since", SINCE_ISO,
                      "--until", str(UNTIL))
    want = [m["physical_offset"] for m in every if SINCE <= m["store_timestamp"] < UNTIL]
    assert [m["physical_offset"] for m in windowed] == want and want[0] == 113348
    # the same with a zone, a millisecond later: the record at SINCE is left out
    later = _lines("messages", str(SAMPLE), "--json", "--limit", "100000", "--since", "2025-09-19T21:48:09.633+08:00",
                   "--until", str(UNTIL))
    assert [m["physical_offset"] for m in later] == want[1:]


def test_messages_of_a_queue_in_a_window():
    argv = ("messages", str(SAMPLE), "--topic", "PaymentEvents", "--queue", "2", "--json")
    every = _lines(*argv)
    windowed = _lines(*argv, "--since", str(SINCE), "--until", str(UNTIL))
    assert [m["queue_offset"] for m in windowed] == [m["queue_offset"] for m in every
                                                     if SINCE <= m["store_timestamp"] < UNTIL] == list(range(19, 25))


def test_the_table_and_a_window_after_the_log_lists_nothing():
    code, out, _ = run("messages", str(SAMPLE), "--since", SINCE_ISO, "--until", "2025-09-19T13:50:00Z")
    assert code == 0 and "113348" in out and "114476" in out and "4 message(s)" in out
    code, out, _ = run("messages", str(SAMPLE), "--since=-15m")  # the sample's records are older than that
    assert code == 0 and "0 message(s)" in out


def test_grep_in_a_window():
    every = _lines("grep", str(SAMPLE), "order-11", "--json", "--limit", "100000")
    windowed = _lines("grep", str(SAMPLE), "order-11", "--json", "--limit", "100000", "--since", SINCE_ISO,
                      "--until", str(UNTIL))
    assert [h["physical_offset"] for h in windowed] == [h["physical_offset"] for h in every
                                                        if SINCE <= h["store_timestamp"] < UNTIL]
    code, out, err = run("grep", str(SAMPLE), "order-11", "--since", "-2h")
    assert (code, out) == (1, "") and "no message matches" in err


def test_bad_windows_are_exit_2_in_one_line():
    for argv, says in ((["messages", "--since", "10:00"], "argument --since: must be a store time"),
                       (["grep", "x", "--until", "13:48"], "argument --until: must be a store time"),
                       (["messages", "--since", str(UNTIL), "--until", str(SINCE)], "is after --until"),
                       (["grep", "x", "--since", str(UNTIL), "--until", str(SINCE)], "is after --until"),
                       (["messages", "--follow", "--since", "-1h"], "does not take --since")):
        code, out, err = run(argv[0], str(SAMPLE), *argv[1:])
        assert code == 2 and out == "" and says in err, (argv, err)
        assert err.strip().splitlines()[-1].startswith("rmq-inspect:")


# customer-143's messages in OrderEvents: (store time, physical offset), the first six
KEY_HITS = [(1758272400196, 0), (1758272459265, 1262), (1758274804577, 11604), (1758275020422, 14541),
            (1758279828660, 38933), (1758281799838, 51089)]


def _key_offsets(*window: str) -> list[int]:
    code, out, err = run("key", str(SAMPLE), "OrderEvents", "customer-143", "--json", *window)
    assert code == 0, err
    return sorted(m["physical_offset"] for m in json.loads(out)["messages"])


def test_key_in_a_window_is_exact_to_the_millisecond():
    # --since on a hit's own store time keeps it; --until on a hit's store time leaves it out
    assert _key_offsets("--since", "1758272459265", "--until", "1758275020422") == [1262, 11604]
    assert _key_offsets("--since", "1758272459266", "--until", "1758275020423") == [11604, 14541]
    # --begin is --since; --end is inclusive (the broker's queryMessage end)
    assert _key_offsets("--begin", "1758272459265", "--end", "1758275020422") == [1262, 11604, 14541]
    assert _key_offsets("--since", "2025-09-19T09:00:59.265Z", "--until", "2025-09-19T09:40:04.578Z") == [1262, 11604]


def test_stats_in_a_window_counts_what_messages_lists():
    listed = _lines("messages", str(SAMPLE), "--json", "--limit", "100000", "--since", SINCE_ISO, "--until", str(UNTIL))
    code, out, err = run("stats", str(SAMPLE), "--json", "--since", SINCE_ISO, "--until", str(UNTIL))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["total"]["messages"] == len(listed) == 85
    assert doc["total"]["first_store_timestamp"] == SINCE and doc["total"]["bytes"] == sum(m["total_size"] for m in listed)
    assert doc["window"]["since_ms"] == SINCE and doc["window"]["until_ms"] == UNTIL
    assert doc["window"]["since"].startswith("2025-09-19T") and doc["window"]["since"][-6] in "+-"
    assert doc["retention"] == []
    code, out, _ = run("stats", str(SAMPLE), "--since", SINCE_ISO, "--until", str(UNTIL))
    assert code == 0 and out.startswith("window: records stored at or after 2025-09-19") and "(window)" in out
    whole = json.loads(run("stats", str(SAMPLE), "--json")[1])
    assert whole["window"] is None and whole["total"]["messages"] > 85


def test_utc_shows_and_reads_times_in_utc(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        code, out, _ = run("messages", str(SAMPLE), "--since", SINCE_ISO, "--until", str(UNTIL), "--limit", "1")
        assert code == 0 and "2025-09-19 21:48:09.632 +08:00" in out
        code, out, _ = run("--utc", "messages", str(SAMPLE), "--since", "2025-09-19T13:48:09.632", "--limit", "1")
        assert code == 0 and "2025-09-19 13:48:09.632 +00:00" in out and "113348" in out
        # without --utc the same naive time is Shanghai's: 8 hours earlier, so an earlier record comes first
        code, out, _ = run("messages", str(SAMPLE), "--since", "2025-09-19T21:48:09.632", "--limit", "1")
        assert code == 0 and "113348" in out
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_bad_key_and_stats_windows_are_exit_2():
    for argv, says in ((["key", "OrderEvents", "k", "--since", "10:00"], "must be a store time"),
                       (["key", "OrderEvents", "k", "--since", str(UNTIL), "--until", str(SINCE)], "is after --until"),
                       (["key", "OrderEvents", "k", "--until", str(UNTIL), "--end", str(SINCE)], "not both"),
                       (["stats", "--until", "13:48"], "argument --until: must be a store time"),
                       (["stats", "--since", str(UNTIL), "--until", str(SINCE)], "is after --until")):
        code, out, err = run(argv[0], str(SAMPLE), *argv[1:])
        assert code == 2 and out == "" and says in err, (argv, err)


def test_utc_is_a_global_flag_and_a_tui_and_web_one():
    from inspector.cli.main import build_parser

    p = build_parser()
    assert p.parse_args(["--utc", "info", "S"]).utc and p.parse_args(["web", "S", "--utc"]).sub_utc
    assert p.parse_args(["tui", "S", "--utc"]).sub_utc and not p.parse_args(["tui", "S"]).sub_utc
    assert "UTC" in p.format_help() and "--utc" in p.format_help()
