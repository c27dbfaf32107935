"""The CLI's scan of the log no index file covers (key, show by UNIQ_KEY): a progress bar like the other long
commands (stderr, a terminal, never with --json) and --budget SECONDS, after which the scan stops between batches
and the answer says where (a partial answer); documented exit codes, no traceback, nothing written."""

from __future__ import annotations

import json

import pytest

from inspector.engine import Budget, Store
from tests.store_digest import tree_digest
from tests.unindexed_store import write_unindexed

TINY = "0.000000001"  # a budget spent before the scan's first batch: it stops there, deterministically


def run(cli, *args: str) -> tuple[int, str, str]:
    """``cli``, with stderr's whitespace folded (Rich wraps long lines)."""
    code, out, err = cli(*args)
    return code, out, " ".join(err.split())


@pytest.fixture
def unindexed(tmp_path):
    u = write_unindexed(tmp_path / "s")
    before = tree_digest(u.root)
    yield u
    assert tree_digest(u.root) == before


def test_key_scan_stopped_by_its_budget_says_so(unindexed, cli) -> None:
    w = unindexed.written[-1]
    code, out, err = run(cli, "key", str(unindexed.root), w.topic, "k1499", "--budget", TINY)
    assert code == 1 and out == ""
    assert "the scan of the log no index file covers stopped at the 1e-09 s time limit after scanning" in err
    assert "the rest was not searched (a larger --budget searches further)" in err
    code, out, err = run(cli, "key", str(unindexed.root), w.topic, "k1499", "--budget", "600", "--json")
    assert code == 0 and [m["physical_offset"] for m in json.loads(out)["messages"]] == [w.physical_offset]
    assert "stopped" not in err  # a budget it stays within: the whole answer, nothing said
    code, _, err = run(cli, "key", str(unindexed.root), w.topic, "k1499", "--budget", "nan")
    assert code == 2 and "--budget: must be a time budget" in err


def test_show_scan_stopped_by_its_budget_says_so(unindexed, cli) -> None:
    code, out, err = run(cli, "show", str(unindexed.root), unindexed.unique_key, "--budget", TINY)
    assert code == 1 and f"no message with id {unindexed.unique_key}" in err and "stopped at the 1e-09 s" in err
    code, out, _ = run(cli, "show", str(unindexed.root), unindexed.unique_key, "--budget", "600", "--json")
    assert code == 0 and json.loads(out)["physical_offset"] == unindexed.written[-1].physical_offset


def test_the_scan_reports_progress_up_to_its_whole_range(unindexed) -> None:
    seen: list[tuple[int, int]] = []
    with Store(unindexed.root) as store:
        (gap,) = store.index_coverage()[1]
        with store.scan_limits(progress=lambda done, total: seen.append((done, total))) as limits:
            hits = store.lookup_key(unindexed.written[-1].topic, "k1499")
        assert limits.stopped is None and len(hits) == 1
        assert seen and seen[-1] == (gap.stop - gap.start, gap.stop - gap.start)
        assert all(0 <= d <= t == gap.stop - gap.start for d, t in seen)
        with store.scan_limits(Budget(1e-9)) as limits:
            assert store.lookup_key(unindexed.written[-1].topic, "k1499") == []
        assert limits.stopped.startswith("stopped at the 1e-09 s time limit after scanning")
        assert store.lookup_key(unindexed.written[-1].topic, "k1499") != []  # the limits end with the block
