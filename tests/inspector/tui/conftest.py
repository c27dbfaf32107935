"""The terminal UI driven on the committed ``sample_store/`` (times shown in UTC so snapshots are stable)."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from tui_helpers import SAMPLE

from inspector.engine import Store
from inspector.tui.app import RmqInspectApp, create_app


@pytest.fixture(autouse=True)
def no_animation(monkeypatch):
    """Apps start with animations off, as ``TEXTUAL_ANIMATIONS=none`` would set: a tab underline sliding from tab 1
    to tab 6 for a few hundred milliseconds is caught half-way by a snapshot on a loaded machine (a CI failure)."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


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
