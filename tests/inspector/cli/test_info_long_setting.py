"""A broker.conf value of a megabyte (a delay table of 340,000 levels, which the fuzzer's "long" shape makes):
info's table shows its first 200 characters and says how long it is; --json keeps it whole; the table is parsed
once (it took 7 s, most of it wrapping the value into the table and parsing it three times)."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.cli.output import clipped

SAMPLE = Path(__file__).resolve().parents[3] / "sample_store"
LEVELS = 340_000


def test_clipped_says_how_long_the_text_was() -> None:
    assert clipped("x" * 200) == "x" * 200
    assert clipped("x" * 201) == "x" * 200 + "... (201 characters; --json has all)"


def test_info_shows_a_megabyte_setting_cut_and_json_whole(cli, tmp_path: Path) -> None:
    conf = tmp_path / "broker.conf"
    table = "1s " * LEVELS
    conf.write_text("messageDelayLevel=" + table)
    code, out, _ = cli("info", str(SAMPLE), "--broker-config", str(conf))
    assert code == 0
    assert f"{len(table.strip()):,}" in out and "characters;" in out and len(out) < 200_000  # Rich wraps the cell
    code, out, _ = cli("info", str(SAMPLE), "--broker-config", str(conf), "--json")
    shown = {s["name"]: s["value"] for s in json.loads(out)["settings"]}
    assert code == 0 and shown["messageDelayLevel"].split() == ["1s"] * LEVELS
