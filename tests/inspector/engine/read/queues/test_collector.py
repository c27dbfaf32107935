"""The cycle collector paused while many records are built (``few_collections``), and given back as it was."""

from __future__ import annotations

import gc
import threading

from inspector.engine.read.queues.collector import few_collections


def test_paused_inside_and_enabled_again_after() -> None:
    assert gc.isenabled()
    with few_collections():
        assert not gc.isenabled()
        with few_collections():  # nested: the inner exit leaves it paused
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_left_off_when_it_was_off() -> None:
    gc.disable()
    try:
        with few_collections():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_error_inside_gives_it_back() -> None:
    try:
        with few_collections():
            raise KeyError
    except KeyError:
        pass
    assert gc.isenabled()


def test_overlapping_threads_leave_it_enabled() -> None:
    """Two threads' blocks overlapping (A enters, B enters, A leaves, B leaves): enabled at the end, not left
    off by B restoring what it saw on entry."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def a() -> None:
        with few_collections():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b() -> None:
        a_in.wait(5)
        with few_collections():
            b_in.set()
            a_out.wait(5)
            assert not gc.isenabled()  # still inside B's block

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert gc.isenabled()
