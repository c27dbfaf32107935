"""A shared, short-lived cache of whole answers ("microcaching"): a workshop room of 30 on one tour step asks for
the same few pages again and again, and each answer is the same for about a second. One process serves them all
(the GIL: about one core), so the viewer renders each page once per ``MICROCACHE_SECONDS`` and answers the
others from memory.

What is cached: a GET or HEAD answer of 200 that sets no cookie and is not streamed (HTML pages and the
read-only ``/api/*`` answers; never the event stream ``STREAM_PATH``, a POST, ``/static/``, an error or a
redirect). The key is the Host, the full path and query, and what changes a page in a workshop room: the role
(trainer or participant, never a participant's own cookie) and the room's state version (so a new step or tally
shows at once). The lookup runs after every guard (Host, token, Origin, rate limit: ``create_app`` registers it
last), so a refused client is never answered from it. Entries live ``MICROCACHE_SECONDS`` (1 s: a live store's
pages are at most that stale); the cache holds at most ``MICROCACHE_ENTRIES`` answers and ``MICROCACHE_BYTES``
bytes (the expired, then the oldest, go first; an answer over an eighth of that is not kept). An answer its time budget
cut short, or one a view calls ``transient`` (the overview while its walk or census runs), is not kept. While one request renders
a key, others asking for it wait for that answer (at most ``FILL_WAIT_SECONDS``) rather than render it too. A hit
says ``cache;desc=hit`` in ``Server-Timing``. ``MICROCACHE_SECONDS`` 0 turns it off.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app, g, request
from werkzeug.wrappers import Response

from inspector.engine import is_utc
from web.access import is_trainer
from web.live import STREAM_PATH

DEFAULTS = {"MICROCACHE_SECONDS": 1.0, "MICROCACHE_ENTRIES": 256, "MICROCACHE_BYTES": 8 * 1024 * 1024}
FILL_WAIT_SECONDS = 5.0  # how long a request waits for another one rendering the same key, then renders itself
_PER_ANSWER = ("Content-Length", "Server-Timing", "Set-Cookie")  # made anew for each answer (or never kept)


@dataclass(frozen=True)
class Entry:
    """One cached answer: its body, the headers the view set (those of every answer, ``_headers`` and
    ``guard.finish``, are added again to each) and when it expires (``clock`` seconds)."""

    body: bytes
    headers: tuple[tuple[str, str], ...]
    expires: float


class Microcache:
    """The answers, by key, thread-safe; ``clock`` is ``time.monotonic`` (a test advances its own)."""

    def __init__(self, seconds: float, entries: int, max_bytes: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.entries, self.max_bytes, self.clock = seconds, entries, max_bytes, clock
        self.lock = threading.Lock()
        self.kept: OrderedDict[tuple, Entry] = OrderedDict()
        self.size = 0
        self.filling: dict[tuple, threading.Event] = {}

    def lookup(self, key: tuple) -> Entry | None:
        """The fresh answer for ``key``, if any (waiting while another request fills it)."""
        with self.lock:
            found = self._fresh(key)
            if found is None and key in self.filling:
                self._wait(key)
                found = self._fresh(key)
            return found

    def claim(self, key: tuple) -> bool:
        """Whether the caller fills ``key`` (nobody else is filling it): then it must call ``done``."""
        with self.lock:
            if key in self.filling:
                return False
            self.filling[key] = threading.Event()
            return True

    def put(self, key: tuple, body: bytes, headers: tuple[tuple[str, str], ...]) -> None:
        if len(body) > self.max_bytes // 8:
            return
        with self.lock:
            now = self.clock()
            if key in self.kept:
                self._drop(key)
            # kept in the order they were made, which is the order they expire in (one TTL): the expired go first,
            # so only the last second's answers stay in memory, then the oldest while over a bound
            while self.kept and (next(iter(self.kept.values())).expires <= now or len(self.kept) >= self.entries
                                 or self.size + len(body) > self.max_bytes):
                self._drop(next(iter(self.kept)))
            self.kept[key] = Entry(body, headers, now + self.seconds)
            self.size += len(body)

    def done(self, key: tuple) -> None:
        """The request that filled ``key`` ended (kept or not): wake those waiting for it."""
        with self.lock:
            event = self.filling.pop(key, None)
        if event is not None:
            event.set()

    def _fresh(self, key: tuple) -> Entry | None:
        found = self.kept.get(key)
        if found is None:
            return None
        if found.expires <= self.clock():
            self._drop(key)
            return None
        return found

    def _wait(self, key: tuple) -> None:
        # called under the lock, which it drops while waiting for the request filling ``key``
        event = self.filling[key]
        self.lock.release()
        try:
            event.wait(FILL_WAIT_SECONDS)
        finally:
            self.lock.acquire()

    def _drop(self, key: tuple) -> None:
        self.size -= len(self.kept.pop(key).body)


def install(app: Flask) -> None:
    """Cache ``app``'s answers: call after every guard is registered (its lookup must run after them)."""
    for k, v in DEFAULTS.items():
        app.config.setdefault(k, v)
    if app.config["MICROCACHE_SECONDS"] <= 0:
        return
    app.extensions["rmq_microcache"] = Microcache(app.config["MICROCACHE_SECONDS"], app.config["MICROCACHE_ENTRIES"],
                                                  app.config["MICROCACHE_BYTES"])
    app.before_request(_serve)
    app.after_request(_keep)  # registered after guard.finish and _headers, so it runs before them
    app.teardown_request(_done)


def _key() -> tuple | None:
    if request.method not in ("GET", "HEAD") or request.path == STREAM_PATH or request.path.startswith("/static/"):
        return None
    room = current_app.extensions.get("rmq_room")
    # the room bar (base.html) and the trainer's page show the role, the step and the tally: keyed on them
    who = ("trainer" if is_trainer() else "participant", room.state().version) if room is not None else ()
    # the zone every time is written in (web --utc, or set_utc in-process) changes every page that shows a time
    return (request.host, request.path, request.query_string, is_utc(), *who)


def _serve():
    """``before_request``, the last one: a fresh answer for this key, else this request renders (and fills) it."""
    key = _key()
    if key is None:
        return None
    cache: Microcache = current_app.extensions["rmq_microcache"]
    found = cache.lookup(key)
    if found is None:
        if cache.claim(key):  # else another request fills it still (it waited its turn out): render, keep nothing
            g.rmq_cache_fill = key
        return None
    g.rmq_cache_hit = True
    return Response(found.body, 200, list(found.headers))


def transient() -> None:
    """This answer is about to change (the overview's walk or census still runs): it is not kept, so their end
    shows on the next request."""
    g.rmq_cache_transient = True


def _keep(response: Response) -> Response:
    """``after_request``: keep the answer this request rendered, when it may be shared: not an answer its time
    budget cut short (a busy moment's partial page), nor a ``transient`` one."""
    key = g.get("rmq_cache_fill")
    deadline = g.get("rmq_deadline")
    if (key is not None and response.status_code == 200 and "Set-Cookie" not in response.headers
            and not response.is_streamed and not response.direct_passthrough and not g.get("rmq_cache_transient")
            and not (deadline is not None and deadline.expired())):
        headers = tuple((k, v) for k, v in response.headers.items() if k not in _PER_ANSWER)
        current_app.extensions["rmq_microcache"].put(key, response.get_data(), headers)
    return response


def _done(_exc: BaseException | None) -> None:
    key = g.get("rmq_cache_fill")
    if key is not None:
        current_app.extensions["rmq_microcache"].done(key)
