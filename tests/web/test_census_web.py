"""The overview's Files section (the census of the store root) and a viewer asked to open a folder that is no store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.engine import BadInput, census, census_view
from web.app import create_app

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"


def test_overview_has_the_census(client, sample_store):
    page = client.get("/").get_data(as_text=True)
    assert 'id="files"' in page and 'id="census"' in page
    assert "1 unknown or misplaced (README.md)" in page
    api = client.get("/api/").get_json()["census"]
    whole = census_view(census(sample_store.root))
    assert api["kinds"] == whole["kinds"] and api["summary"] == whole["summary"]
    assert api["problems_total"] == 1 and api["problems"][0]["file"] == "README.md"


def test_an_empty_stray_in_commitlog_is_shown_as_an_error(tmp_path):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    (root / "commitlog" / "00000000000000000001").write_bytes(b"")
    app = create_app(root)
    try:
        page = app.test_client().get("/").get_data(as_text=True)
        assert "1 the broker would not start with" in page and "empty-segment" in page
    finally:
        app.extensions["rmq_store"].close()


@pytest.mark.parametrize("rel", ["", "commitlog", "consumequeue/OrderEvents"])
def test_create_app_on_a_folder_that_is_no_store_is_bad_input(tmp_path, rel):
    path = tmp_path if not rel else SAMPLE / rel
    with pytest.raises(BadInput) as e:
        create_app(path)
    assert e.value.file == str(path)


def test_the_web_command_on_an_empty_folder_exits_2(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run([sys.executable, "-m", "inspector.cli.main", "web", str(tmp_path), "--port", "0"],
                          capture_output=True, text=True, env=env, timeout=60, cwd=REPO)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (f"rmq-inspect: {tmp_path}: no RocketMQ store here (no commitlog/, consumequeue/, index/, "
                           "checkpoint or config/); the folder is empty\n")


def test_a_stray_whose_name_is_no_utf8(tmp_path):
    root = tmp_path / "s"
    shutil.copytree(SAMPLE, root)
    name = os.fsdecode(b"junk-\xff\xfe")
    (root / name).write_bytes(b"x")
    app = create_app(root)
    try:
        client = app.test_client()
        assert name in [p["file"] for p in client.get("/api/").get_json()["census"]["problems"]]
        page = client.get("/")
        assert page.status_code == 200 and "junk-\\xff\\xfe" in page.get_data(as_text=True)
    finally:
        app.extensions["rmq_store"].close()
