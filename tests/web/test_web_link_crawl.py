"""A link crawler (issue 33): from ``/``, every same-site link of every page reached within a bound, on the sample
store, a copy without ``consumequeue/`` and a copy with a zeroed page mid-segment: no link leads to a 404 or 500."""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from collections import deque
from html import unescape
from pathlib import Path

import pytest
from external_tools import SAMPLE_STORE, need

from inspector.engine import Store
from web.app import create_app

pytestmark = pytest.mark.timeout(240)

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"
PAGES = 120  # pages fetched per store: every page of the nav and what they link, not every message of the store
HREF = re.compile(r'href="(/[^"]*)"')
SKIP = ("/static/", "/room/")  # files; the workshop room's streams only answer when a room is running


def _damage_scenarios():
    """tests/hardening/damage_scenarios.py (its directory is not on sys.path when only tests/web is collected)."""
    path = Path(__file__).resolve().parents[1] / "hardening" / "damage_scenarios.py"
    spec = importlib.util.spec_from_file_location("damage_scenarios", path)
    module = sys.modules.setdefault("damage_scenarios", importlib.util.module_from_spec(spec))
    if not hasattr(module, "make"):
        spec.loader.exec_module(module)
    return module


def _copy(tmp: Path) -> Path:
    need(SAMPLE_STORE)
    root = tmp / "store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def _no_consumequeue(tmp: Path) -> Path:
    root = _copy(tmp)
    shutil.rmtree(root / "consumequeue")
    return root


def _zeroed_page(tmp: Path) -> Path:
    root = _copy(tmp)
    _damage_scenarios().zeroed_page_mid_segment(root)
    return root


def crawl(client, limit: int = PAGES) -> tuple[dict[str, int], dict[str, str]]:
    """Breadth-first from ``/``: (status of each URL fetched, the page each URL was first linked from)."""
    seen: dict[str, int] = {}
    linked_from: dict[str, str] = {"/": "(start)"}
    todo = deque(["/"])
    while todo and len(seen) < limit:
        url = todo.popleft()
        r = client.get(url)
        seen[url] = r.status_code
        if r.status_code != 200 or not r.content_type.startswith("text/html"):
            continue
        for href in HREF.findall(r.get_data(as_text=True)):
            href = unescape(href).split("#")[0]
            if href.startswith("//") or href.startswith(SKIP) or not href or href in linked_from:
                continue
            linked_from[href] = url
            todo.append(href)
    return seen, linked_from


@pytest.mark.parametrize("make", [None, _no_consumequeue, _zeroed_page], ids=["sample", "no-consumequeue", "zeroed"])
def test_no_link_leads_to_a_404_or_500(make, tmp_path):
    root = _copy(tmp_path) if make is None else make(tmp_path)
    with Store(root) as store:
        seen, linked_from = crawl(create_app(store, {"TESTING": True}).test_client())
    assert len(seen) == PAGES, f"the crawl reached only {len(seen)} pages"
    broken = {url: (code, linked_from[url]) for url, code in seen.items() if code in (404, 500)}
    assert not broken, broken
