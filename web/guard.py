"""Limits that keep a room of clients served: a per-client rate on the expensive endpoints, a cap on any answer's
size, and each response's time in a ``Server-Timing`` header.

The expensive endpoints walk or scan (``EXPENSIVE``: key chains, searches of the log, a message's story, list
pages that scan the log): each client (its address) may start ``RATE_BURST`` of them at once and then
``RATE_PER_SECOND``; more is a 429 with ``Retry-After``. Loopback clients are not limited: that is the machine the
viewer runs on (its owner, and the load test's clients). An answer over ``MAX_RESPONSE_BYTES`` is replaced by a
short error naming its size (every page is capped by ``Limits`` already; this is the last guard).

Config keys (``create_app``): ``RATE_PER_SECOND``, ``RATE_BURST`` (0: no limit), ``MAX_RESPONSE_BYTES``.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time

from flask import current_app, g, request

EXPENSIVE = ("/chain", "/search", "/story", "/messages", "/slot", "/resolve")
DEFAULTS = {"RATE_PER_SECOND": 4.0, "RATE_BURST": 20, "MAX_RESPONSE_BYTES": 16 * 1024 * 1024}
_MAX_CLIENTS = 10_000  # buckets kept; past it the fullest (idle) ones are dropped, so memory stays bounded


class Buckets:
    """Token buckets per client address (thread-safe: the server's threads share one)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.state: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)

    def take(self, client: str, rate: float, burst: int, now: float) -> float:
        """0 when ``client`` may go now (one token taken), else the seconds until it may."""
        with self.lock:
            tokens, when = self.state.get(client, (float(burst), now))
            tokens = min(float(burst), tokens + (now - when) * rate)
            if tokens >= 1:
                self.state[client] = (tokens - 1, now)
                if len(self.state) > _MAX_CLIENTS:
                    for gone in sorted(self.state, key=lambda c: -self.state[c][0])[: _MAX_CLIENTS // 10]:
                        del self.state[gone]
                return 0.0
            self.state[client] = (tokens, now)
            return (1 - tokens) / rate


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _expensive(path: str) -> bool:
    path = path[4:] if path.startswith("/api/") else path
    return any(path == p or path.startswith(p + "/") for p in EXPENSIVE)


def start_clock():
    """``before_request`` (first of all): when the request reached the app."""
    g.rmq_started = time.perf_counter()


def rate_limit():
    """``before_request``: a client past its rate on an expensive endpoint gets a 429."""
    rate, burst = current_app.config["RATE_PER_SECOND"], current_app.config["RATE_BURST"]
    client = request.remote_addr or ""
    if not burst or not _expensive(request.path) or _loopback(client):
        return None
    wait = current_app.extensions["rmq_buckets"].take(client, rate, burst, time.monotonic())
    if not wait:
        return None
    from web.app import _error

    response = current_app.make_response(_error(
        429, "Too Many Requests", f"this client asked for {burst} walks or scans in a short time (the viewer allows "
        f"{rate:g} a second to each client, so the room stays served); try again in {math.ceil(wait)} s"))
    response.headers["Retry-After"] = str(math.ceil(wait))
    return response


def finish(response):
    """``after_request``: the size cap and the ``Server-Timing`` header."""
    cap = current_app.config["MAX_RESPONSE_BYTES"]
    size = response.content_length  # None for a streamed answer: none is streamed from a store's bytes
    if size is not None and size > cap and not response.direct_passthrough:
        from web.app import _error

        response = current_app.make_response(_error(
            500, "Response Too Large", f"this answer would be {size} bytes, over the viewer's cap of {cap}; ask "
            "for less (a smaller limit or length)"))
    started = g.get("rmq_started")
    if started is not None:
        timing = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
        # answered from the shared cache (web.microcache): said, so a slow or stale-looking page is explained
        response.headers["Server-Timing"] = timing + (", cache;desc=hit" if g.get("rmq_cache_hit") else "")
    return response
