"""``messages``' table shows the first PROBLEM_RUN findings of a run of one code and then one counted row; stderr
still names every finding (a store with thousands of empty files named as segments drew them all, for seconds)."""

import shutil
from pathlib import Path

from inspector.cli.main import main
from inspector.cli.messages import PROBLEM_RUN

SAMPLE = Path(__file__).parents[3] / "sample_store"


def test_a_run_of_one_finding_is_folded_in_the_table_and_complete_on_stderr(tmp_path, capsys):
    store = tmp_path / "s"
    shutil.copytree(SAMPLE, store)
    last = max(int(p.name) for p in (store / "commitlog").iterdir())
    for i in range(1, 31):
        (store / "commitlog" / f"{last + i * 65536:020d}").touch()
    capsys.readouterr()
    main(["messages", str(store), "--limit", "5"])
    out, err = capsys.readouterr()
    assert err.count("(empty-segment)") == 30  # every finding on stderr
    assert out.count("an empty file") == PROBLEM_RUN
    flat = "".join(c for c in out if not c.isspace() and c != "│")  # the row wraps inside its narrow column
    assert f"{30 - PROBLEM_RUN:,}moreempty-segmentfinding(s):eachisonstderr" in flat
