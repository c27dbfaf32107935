"""The whole-store overview walked once per store, in a background thread, and shared by every reader.

A long-running front end (the web viewer) cannot walk a store of many GiB inside one request: it asks
:func:`survey_of` for the store's one :class:`StoreSurvey`, which runs :func:`store_overview` (segment scans
and recovery with the bulk kernels) in a daemon thread, with no time limit. Any thread may read
:meth:`StoreSurvey.state` (how far the walk is: stage, segment, bytes) and, once done, :meth:`StoreSurvey.result`
(the complete overview). Closing the store stops the walk first (the walk reads the store's mappings).
"""

from __future__ import annotations

import bisect
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass

from inspector.engine.model.budget import Budget
from inspector.engine.present.overview import store_overview
from inspector.engine.read.store.answers import recovery_start
from inspector.engine.read.store.store import Store

STAGES = {"scan": "walking segment", "recovery": "recovery: walking segment", "queues": "reading consume queues",
          "index files": "reading index files and consumer offsets"}


@dataclass(frozen=True)
class SurveyState:
    """How far a survey is. ``stage``: "starting", one of :data:`STAGES`, "done", "stopped" or "failed"."""

    stage: str
    segment: int  # 1-based number of the segment being walked (0: none yet)
    segments: int
    bytes_done: int  # of the segment bytes the scans and recovery's walk read
    bytes_total: int
    seconds: float  # since the walk started
    error: str | None = None

    @property
    def done(self) -> bool:
        return self.stage in ("done", "stopped", "failed")

    @property
    def percent(self) -> int:
        if self.stage == "done":
            return 100
        return min(99, self.bytes_done * 100 // self.bytes_total) if self.bytes_total else 0

    def note(self) -> str:
        """One line for a page: "walking segment 3/8, 41%"."""
        if self.stage == "done":
            return f"walk complete ({self.seconds:.1f} s)"
        if self.stage == "failed":
            return f"walk failed: {self.error}"
        if self.stage == "stopped":
            return "walk stopped (the store was closed)"
        what = STAGES.get(self.stage, "starting the walk")
        where = f" {self.segment}/{self.segments}" if self.stage in ("scan", "recovery") else ""
        return f"{what}{where}, {self.percent}%"

    def as_dict(self) -> dict:
        return asdict(self) | {"done": self.done, "percent": self.percent, "note": self.note()}


class StoreSurvey:
    """One background walk of ``store`` (see the module docstring). ``pace``, when given, is called at every
    progress point of the walk, in the walking thread (tests use it to hold the walk part-way)."""

    def __init__(self, store: Store, *, pace: Callable[[], None] | None = None) -> None:
        self.store = store
        self.pace = pace
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._finished = threading.Event()
        segments = store.segments
        self._starts = [s.start_offset for s in segments]
        self._sizes = [s.file_size for s in segments]
        self._recovery_from = 0
        self._scanned = self._recovered = 0
        self._stage, self._segment, self._error = "starting", 0, None
        self._started = time.monotonic()
        self._ended: float | None = None
        self._result: dict | None = None
        self._thread = threading.Thread(target=self._run, name=f"survey {store.root}", daemon=True)

    def start(self) -> StoreSurvey:
        with self._lock:
            if self._thread.ident is None:
                self._started = time.monotonic()
                self._thread.start()
        return self

    def state(self) -> SurveyState:
        with self._lock:
            total = sum(self._sizes) + sum(self._sizes[self._recovery_from:])
            seconds = (self._ended or time.monotonic()) - self._started
            return SurveyState(self._stage, self._segment, len(self._sizes), self._scanned + self._recovered, total,
                               seconds, self._error)

    def result(self) -> dict | None:
        """The complete overview (``store_overview``) once the walk is done, else None."""
        return self._result

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the walk to end; True when it has."""
        return self._finished.wait(timeout)

    @property
    def stopping(self) -> bool:
        """True once :meth:`stop` was called."""
        return self._stop.is_set()

    def stop(self, timeout: float | None = 60.0) -> None:
        """Ask the walk to stop (between segments, or between recovery's batches) and wait for it."""
        self._stop.set()
        if self._thread.ident is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # -- the walking thread ----------------------------------------------------------------------------------

    def _covered(self, offset: int, first: int = 0) -> int:
        """Segment bytes below ``offset``, counting segments from index ``first`` on."""
        return sum(min(max(offset - start, 0), size)
                   for start, size in zip(self._starts[first:], self._sizes[first:], strict=True))

    def _progress(self, stage: str, offset: int) -> None:
        with self._lock:
            self._stage = stage
            if stage in ("scan", "recovery"):
                self._segment = max(1, min(len(self._starts), bisect.bisect_right(self._starts, offset)))
            if stage == "scan":
                self._scanned = self._covered(offset)
            elif stage == "recovery":
                self._scanned = sum(self._sizes)
                self._recovered = self._covered(offset, self._recovery_from)
        if self.pace is not None:
            self.pace()

    def _run(self) -> None:
        try:
            _, start = recovery_start(self.store)
            with self._lock:
                self._recovery_from = len(self._sizes) if start is None else start
            d = store_overview(self.store, budget=Budget(should_stop=self._stop.is_set), progress=self._progress)
            stage = "stopped" if d["truncated"] else "done"
        except Exception as e:  # noqa: BLE001 - a walk that fails says why on the page, never kills the server
            d, stage = None, "failed"
            with self._lock:
                self._error = f"{type(e).__name__}: {e}"
        with self._lock:
            self._result = d if stage == "done" else None
            self._stage = stage
            self._ended = time.monotonic()
            if stage == "done":
                self._scanned, self._recovered = sum(self._sizes), sum(self._sizes[self._recovery_from:])
        self._finished.set()


_SURVEYS: weakref.WeakKeyDictionary[Store, StoreSurvey] = weakref.WeakKeyDictionary()
_SURVEYS_LOCK = threading.Lock()


def survey_of(store: Store, *, pace: Callable[[], None] | None = None) -> StoreSurvey:
    """The store's one survey, started on first use (``pace``: see :class:`StoreSurvey`, first call only).
    Closing the store stops it."""
    with _SURVEYS_LOCK:
        survey = _SURVEYS.get(store)
        if survey is None:
            survey = StoreSurvey(store, pace=pace)
            _SURVEYS[store] = survey
            store.on_close(survey.stop)
    return survey.start()
