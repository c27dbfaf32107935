"""web/background.py: an answer computed once in a daemon thread, shown as it stands."""

from __future__ import annotations

import threading
import time

from inspector.engine import StoreError
from web.background import Background


def finished(job: Background) -> dict:
    job._thread.join(10)  # noqa: SLF001 - the test waits for the work it started
    return job.state()


def test_working_then_done_with_the_result():
    gate = threading.Event()
    job = Background(lambda: gate.wait(10) and {"answer": 42}, "t-ok", "the work failed")
    assert job.state()["done"] is False and job.result is None
    gate.set()
    state = finished(job)
    assert state["done"] is True and state["error"] is None and job.result == {"answer": 42}


def test_a_store_error_is_said_in_its_own_words():
    def work():
        raise StoreError("commitlog/00000000000000000000 @ 4,096: not a segment")
    state = finished(Background(work, "t-store", "the work failed"))
    assert state["done"] and state["error"] == "commitlog/00000000000000000000 @ 4,096: not a segment"


def test_any_other_failure_is_said_and_the_page_stops_waiting():
    def work():
        time.sleep(0.01)
        raise KeyError("x")
    state = finished(Background(work, "t-bug", "the plan failed"))
    assert state["done"] and state["error"] == "the plan failed: KeyError: 'x'" and state["seconds"] >= 0.01
