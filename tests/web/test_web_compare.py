"""The diff page (``rmq-inspect web A --compare B``): computed once in the background, shown at /diff and
/api/diff; without --compare the page says how to start one; store text on it escaped; in real Chromium the
page reloads itself until the comparison is done and its offsets link to the records."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from test_browser import page, pytestmark, shot  # noqa: F401 - fixtures, timeout and skip shared
from web_support import served

from inspector.cli.main import main as cli_main
from inspector.engine import Store
from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"


def _finished(client) -> dict:
    for _ in range(400):
        state = client.get("/api/diff").get_json()
        if state["done"]:
            return state
        time.sleep(0.05)
    raise AssertionError("the comparison never finished")


@pytest.fixture
def changed(tmp_path) -> Path:
    """The sample store with one flipped byte, no index files and a config value that is markup."""
    b = Path(shutil.copytree(SAMPLE, tmp_path / "b"))
    seg = sorted((b / "commitlog").iterdir())[0]
    data = bytearray(seg.read_bytes())
    data[300] ^= 0x55
    seg.write_bytes(bytes(data))
    shutil.rmtree(b / "index")
    (b / "config" / "delayOffset.json.bak").write_text('{"offsetTable": {"<script>alert(1)</script>": 1}}')
    return b


def test_without_compare_the_page_says_how(client):
    html = client.get("/diff").get_data(as_text=True)
    assert "--compare B" in html and 'href="/diff"' not in client.get("/").get_data(as_text=True)
    r = client.get("/api/diff")
    assert r.status_code == 404 and "--compare B" in r.get_json()["message"]


def test_identical_copy(sample_store, tmp_path):
    with Store(shutil.copytree(SAMPLE, tmp_path / "b")) as other:
        client = create_app(sample_store, {"TESTING": True, "COMPARE": other}).test_client()
        state = _finished(client)
        assert state["error"] is None and state["diff"]["identical"] is True
        html = client.get("/diff").get_data(as_text=True)
        assert 'id="identical"' in html and 'href="/diff"' in html  # the navbar's Diff link


def test_differences_are_listed_and_store_text_escaped(sample_store, changed):
    with Store(changed) as other:
        client = create_app(sample_store, {"TESTING": True, "COMPARE": other}).test_client()
        d = _finished(client)["diff"]
        first = int(sorted((SAMPLE / "commitlog").iterdir())[0].name) + 300
        assert int(d["first_divergence"]) == first and d["index_only_in_a"] > 0 and d["partial"]
        html = client.get("/diff").get_data(as_text=True)
        assert f'/hex?offset={first}' in html and 'id="index-items"' in html and 'id="records"' in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
        assert "A partial answer" in html


def test_compare_with_a_folder_that_is_no_store_is_one_line(tmp_path, capsys):
    code = cli_main(["web", str(SAMPLE), "--compare", str(tmp_path), "--port", "0"])
    err = capsys.readouterr().err
    assert code in (2, 3) and str(tmp_path) in err and "Traceback" not in err


def test_the_page_in_chromium_links_the_divergence(page, sample_store, changed):  # noqa: F811
    with Store(changed) as other, served(create_app(sample_store, {"COMPARE": other})) as url:
        page.goto(f"{url}/diff")
        page.wait_for_selector("#divergence")  # after the reloads while comparing
        shot(page.locator("main"), "diff.png")
        page.locator("#divergence a").click()
        page.wait_for_url("**/hex?offset=*")
        assert not page.errors


def test_a_comparison_that_fails_says_so_instead_of_comparing_forever(sample_store, tmp_path, monkeypatch):
    import web.compare as compare

    def broken(a, b, limit):
        raise ValueError("a reader broke")

    monkeypatch.setattr(compare, "store_diff", broken)
    with Store(shutil.copytree(SAMPLE, tmp_path / "b")) as other:
        client = create_app(sample_store, {"TESTING": True, "COMPARE": other}).test_client()
        state = _finished(client)
        assert state["error"] == "the comparison failed: ValueError: a reader broke"
        assert "The comparison stopped" in client.get("/diff").get_data(as_text=True)
