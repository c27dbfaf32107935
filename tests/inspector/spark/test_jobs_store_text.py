"""The Spark jobs' consoles show store text escaped, as ``rmq-inspect`` does: a topic, keys and a topic folder
named with terminal escapes come out as ``\\x1b``..., never raw, and markup in them prints literally."""

from __future__ import annotations

import shutil

from hostile_text import unsafe_in, write_store_text

from inspector.spark.jobs import stats, verify

TOPIC = "T\x1b]0;PWNED\x07[bold]"
FOLDER = "\x1b]0;PWNED\x07\x1b[2J"


def test_stats_and_verify_print_store_text_escaped(spark, tmp_path, capsys):
    messages = [{"topic": TOPIC, "body": "\x1b[31mRED", "keys": ["k\x1b[2Jx"], "tags": "t\x1b[1m"}]
    code, _, err = write_store_text(tmp_path, messages)
    assert code == 0, err
    root = tmp_path / "store"
    queue = root / "consumequeue" / TOPIC / "0"
    shutil.copytree(queue, root / "consumequeue" / FOLDER / "0")  # a folder name that retitles, then clears
    capsys.readouterr()
    assert stats.main([str(root)], spark) == 0
    out, err = capsys.readouterr()
    assert not unsafe_in(out) and not unsafe_in(err), (unsafe_in(out), unsafe_in(err))
    assert "T\\x1b]0;PWNED\\x07[bold]" in out and "k\\x1b[2Jx" in out
    assert verify.main([str(root)], spark) == 4  # the copied queue's unit points at another topic's record
    out, err = capsys.readouterr()
    assert not unsafe_in(out) and not unsafe_in(err), (unsafe_in(out), unsafe_in(err))
    unfolded = "".join(c for c in out if c not in "\n│ ")  # a table cell may fold the long file name
    assert "consumequeue/\\x1b]0;PWNED\\x07\\x1b[2J/0/" in unfolded
