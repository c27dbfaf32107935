"""Which POSTs the viewer takes: only those sent by its own pages (cross-site request forgery).

Every route is GET-only except a workshop room's two (``web.live``: the trainer's step, a participant's answer),
which change only the room's state in memory. A page on another site could still make a browser POST a form
here (on loopback no cookie is needed at all), so a POST must carry an ``Origin`` header naming this very
viewer (scheme and ``Host``, which ``web.hosts`` has already checked), or, when the browser hid the origin
(``Origin: null``), ``Sec-Fetch-Site: same-origin``, which only a browser sets; a client with ``Authorization: Bearer`` is exempt (a foreign page cannot set that header without a CORS preflight,
which the viewer never grants). Anything else is a 403 naming the rule.
"""

from __future__ import annotations

from flask import request

SAFE = ("GET", "HEAD", "OPTIONS")


def check_origin():
    """``before_request``: a POST from anywhere but this viewer's own pages is a 403."""
    if request.method in SAFE or request.routing_exception is not None:  # a 405 or 404 stays that
        return None
    if request.headers.get("Authorization", "").lower().startswith("bearer "):
        return None
    origin = request.headers.get("Origin")
    if origin is not None and origin == f"{request.scheme}://{request.host}":
        return None
    # the viewer's pages say Referrer-Policy: no-referrer, so a browser sends a form's POST with "Origin: null";
    # then Sec-Fetch-Site (set by the browser, never by a page) tells our own form from a foreign one
    if origin in (None, "null") and request.headers.get("Sec-Fetch-Site") == "same-origin":
        return None
    from web.app import _error

    shown = "no Origin header" if origin is None else f"Origin {origin[:100]!r}"
    return _error(403, "Forbidden", f"a POST must come from this viewer's own page ({shown}); "
                                    "cross-site requests are refused")
