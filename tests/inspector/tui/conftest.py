"""The terminal UI driven on the committed ``sample_store/`` (times shown in UTC so snapshots are stable)."""

from __future__ import annotations

import difflib
import html
import os
import re
import shutil
import time

import pytest
from tui_helpers import SAMPLE, screen_text

from inspector.engine import Store
from inspector.tui.app import RmqInspectApp, create_app


@pytest.fixture(autouse=True)
def no_animation(monkeypatch):
    """Apps start with animations off, as ``TEXTUAL_ANIMATIONS=none`` would set: a tab underline sliding from tab 1
    to tab 6 for a few hundred milliseconds is caught half-way by a snapshot on a loaded machine (a CI failure)."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def snap_compare(snap_compare, request):
    """pytest-textual-snapshot's compare, and on a mismatch the words of both pictures printed (a CI log shows
    stdout, not the HTML report): what differs in the text, or that only colours or styles do."""

    def compare(app, *args, run_before=None, **kwargs) -> bool:
        seen: list[str] = []
        focus: list[str] = []

        async def before(pilot):
            if run_before is not None:
                await run_before(pilot)
            seen.append(screen_text(pilot.app))
            focus.append(repr(pilot.app.focused))

        same = snap_compare(app, *args, run_before=before, **kwargs)
        if not same:
            print(_mismatch(request, seen[0] if seen else ""), f"focused: {focus[0] if focus else '?'}", sep="\n")
        return same

    return compare


def _mismatch(request, actual: str) -> str:
    baseline = (request.path.parent / "__snapshots__" / request.path.stem
                / f"{request.node.name.replace('/', '_')}.svg")
    if not baseline.exists():
        return f"no baseline at {baseline}"
    expected = _svg_text(baseline.read_text(encoding="utf-8"))
    got = [w for line in actual.splitlines() if (w := "".join(line.split()))]
    diff = list(difflib.unified_diff(expected, got, "baseline", "this run", lineterm=""))
    shown = "\n".join(diff) if diff else "the words are the same: only colours or styles differ"
    return f"snapshot mismatch, {baseline.name}:\n{shown}"


def _svg_text(svg: str) -> list[str]:
    """The characters of a snapshot, a line per screen row (the SVG splits a row into runs by style, and its
    spaces are not all there: compared without them), the window title left out."""
    rows: dict[float, list[tuple[float, str]]] = {}
    for x, y, body in re.findall(r'<text[^>]*\bx="([\d.]+)"[^>]*\by="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(y), []).append((float(x), html.unescape(re.sub("<[^>]+>", "", body))))
    lines = ["".join("".join(t for _, t in sorted(parts)).split()) for _, parts in sorted(rows.items())]
    title = re.search(r'class="terminal-title"[^>]*>([^<]*)<', svg)
    return [w for w in lines if w and not (title and w == "".join(html.unescape(title.group(1)).split()))]


@pytest.fixture(autouse=True)
def utc():
    """Times on screen are local: show them in UTC so snapshots are the same on every machine."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.fixture
def store():
    s = Store(SAMPLE)
    yield s
    s.close()


@pytest.fixture
def app(store) -> RmqInspectApp:
    return create_app(store)


@pytest.fixture
def damaged_store(tmp_path) -> tuple[Store, dict]:
    """A copy of sample_store (same directory name) with one message's magic code overwritten."""
    dst = tmp_path / "sample_store"
    shutil.copytree(SAMPLE, dst, ignore=shutil.ignore_patterns("README.md"))
    with Store(dst) as probe:
        messages = [e for e in probe.entries(probe.segments[0].start_offset) if hasattr(e, "topic")][:20]
        victim = messages[10]
    seg_file = dst / victim.file
    data = bytearray(seg_file.read_bytes())
    data[victim.position + 4 : victim.position + 8] = b"\xde\xad\xbe\xef"
    seg_file.write_bytes(bytes(data))
    s = Store(dst)
    yield s, {"offset": victim.physical_offset, "file": victim.file, "position": victim.position}
    s.close()
