"""``messages --from N`` below what retention left (tests/aged_store.py): the listing starts at the log's first
offset (or the queue's min offset) and says so first, on stderr; stdout keeps only the listing (pure JSON Lines
with --json). A start at or above it says nothing."""

from __future__ import annotations

import json

import pytest

from tests.aged_store import age_store, write_store


@pytest.fixture
def aged(tmp_path):
    root = tmp_path / "s"
    written = write_store(root, 600)
    return root, written, age_store(root, 1)


def test_from_below_the_logs_first_offset_says_expired_and_lists_from_there(aged, cli) -> None:
    root, written, a = aged
    gone = written[3].physical_offset
    assert gone < a.first_offset
    code, out, err = cli("messages", str(root), "--from", str(gone), "--limit", "2", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [m["physical_offset"] for m in lines][0] in (a.first_offset, str(a.first_offset))
    assert (f"note: --from {gone}: expired: below the log's first offset {a.first_offset} (removed by retention); "
            "starting there") in " ".join(err.split())
    code, out, err = cli("messages", str(root), "--from", str(gone), "--limit", "2")
    assert code == 0 and "expired: below the log's first offset" in err and "expired" not in out
    code, _, err = cli("messages", str(root), "--from", str(a.first_offset), "--limit", "2")
    assert code == 0 and "expired" not in err


def test_from_below_a_queues_min_offset_says_expired_and_lists_from_it(aged, cli) -> None:
    root, written, a = aged
    left = sorted(w.queue_offset for w in written if (w.topic, w.queue_id) == ("T0", 0)
                  and w.physical_offset >= a.first_offset)
    code, out, err = cli("messages", str(root), "--topic", "T0", "--queue", "0", "--from", "0", "--limit",
                         "1", "--json")
    assert code == 0 and json.loads(out.splitlines()[0])["queue_offset"] == left[0]
    assert f"--from 0: expired: below the queue's min offset {left[0]}" in " ".join(err.split())
    code, _, err = cli("messages", str(root), "--topic", "T0", "--queue", "0", "--from", str(left[0]),
                       "--limit", "1")
    assert code == 0 and "expired" not in err


def test_a_store_retention_never_touched_says_nothing(tmp_path, cli) -> None:
    root = tmp_path / "s"
    write_store(root, 50)
    code, _, err = cli("messages", str(root), "--from", "0", "--limit", "1")
    assert code == 0 and "expired" not in err
