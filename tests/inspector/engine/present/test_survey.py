"""The store's one background walk (``survey_of``): shared, showing progress while it runs, complete (never
truncated) once done, equal to ``store_overview``; closing the store stops it."""

from __future__ import annotations

import threading
import time

import pytest
from multi_segment_store import GEOMETRY, write_multi_segment_store

from inspector.engine import Store, store_overview, survey_of

pytestmark = pytest.mark.timeout(120)

@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return write_multi_segment_store(tmp_path_factory.mktemp("survey") / "store")


def open_store(root) -> Store:
    return Store(root, segment_size=GEOMETRY.segment_size)


class Gate:
    """A ``pace`` hook holding the walk at its ``at``-th progress point until released."""

    def __init__(self, at: int) -> None:
        self.at, self.calls = at, 0
        self.reached, self.go = threading.Event(), threading.Event()

    def __call__(self) -> None:
        self.calls += 1
        if self.calls == self.at:
            self.reached.set()
            assert self.go.wait(60)


def test_the_walk_shows_progress_then_the_complete_overview(root):
    with open_store(root) as fresh:
        expected = store_overview(fresh)
    assert len(expected["segments"]) >= 4 and expected["truncated"] is None
    gate = Gate(at=5)  # the scan of the third segment starts
    with open_store(root) as store:
        survey = survey_of(store, pace=gate)
        assert survey_of(store) is survey  # one walk per store, whoever asks
        assert gate.reached.wait(60)
        state = survey.state()
        assert not state.done and survey.result() is None and not survey.wait(0)
        assert state.stage == "scan" and state.segment == 3 and state.segments == len(expected["segments"])
        assert 0 < state.bytes_done < state.bytes_total and 0 < state.percent < 100
        assert state.note().startswith(f"walking segment 3/{state.segments}, ")
        gate.go.set()
        assert survey.wait(60)
        state = survey.state()
        assert state.stage == "done" and state.percent == 100 and state.bytes_done == state.bytes_total
        assert survey.result() == expected  # complete, never truncated, the engine's one definition


def test_closing_the_store_stops_the_walk(root):
    gate = Gate(at=2)
    store = open_store(root)
    survey = survey_of(store, pace=gate)
    assert gate.reached.wait(60)
    closer = threading.Thread(target=store.close)
    closer.start()  # waits for the walk, which stops at its next step once released
    deadline = time.monotonic() + 60
    while not survey.stopping and time.monotonic() < deadline:
        time.sleep(0.01)
    gate.go.set()
    closer.join(60)
    assert not closer.is_alive() and survey.wait(0)
    assert survey.state().stage == "stopped" and survey.result() is None
