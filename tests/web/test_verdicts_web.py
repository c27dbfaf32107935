"""The web overview gives an empty stray segment (apache/rocketmq#3257) the verdict census, verify and preflight
give it: an error in the census table and in the problems table, and in the API (issue 29 item 3)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[1].parent / "sample_store"
STRAY = f"{3 * 65536:020d}"


def test_the_overview_calls_an_empty_stray_segment_an_error_in_both_tables(tmp_path):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / STRAY).write_bytes(b"")
    app = create_app(root)
    try:
        client = app.test_client()
        page = client.get("/").get_data(as_text=True)
        rows = re.findall(r'<tr class="sev-(\w+)"><td>\w+</td><td>([^<]*)</td>(?:<td class="num">\d+</td>)?'
                          r'<td>([^<]*)</td>', page)
        mine = [(sev, code) for sev, file, code in rows if file == f"commitlog/{STRAY}"]
        assert mine == [("error", "empty-segment"), ("error", "empty-segment")]  # the census's, the store's
        api = client.get("/api/").get_json()
        said = [p["severity"] for p in api["problems"] + api["census"]["problems"] if p["code"] == "empty-segment"]
        assert said == ["error", "error"]
    finally:
        app.extensions["rmq_store"].close()
