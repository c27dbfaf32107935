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
