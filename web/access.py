"""Who may read the viewer: on loopback anyone on this machine (as ever); bound elsewhere, a browser or client that
holds the token (as Jupyter does it).

``rmq-inspect web --host 0.0.0.0`` makes a random token at start and prints ``http://HOST:PORT/?token=…``
(``--token VALUE`` or ``RMQ_INSPECT_TOKEN`` choose it). The first visit with ``?token=`` sets an HttpOnly,
SameSite=Strict cookie and redirects to the same URL without the token (so it stays out of the history, the
Referer and screenshots); API clients send ``Authorization: Bearer TOKEN``. Anything else is a 401 saying where
the token is printed. Tokens are compared in constant time (``hmac.compare_digest``).

Config key (set by ``web.app.serve``): ``ACCESS_TOKEN``, the token (``None``: no token asked).
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlencode

from flask import current_app, redirect, request

COOKIE = "rmq_inspect_token"
ENV = "RMQ_INSPECT_TOKEN"
WHERE = ("this viewer is not on loopback, so it needs its token: open the URL with ?token=... that "
         "`rmq-inspect web` printed on the terminal it runs in (API clients: Authorization: Bearer TOKEN)")


def new_token() -> str:
    """A random token (32 bytes of ``secrets``, URL-safe)."""
    return secrets.token_urlsafe(32)


def cookie_name() -> str:
    """The cookie's name, with the viewer's port: cookies are not kept apart by port, and two viewers on one
    machine (two rooms, two stores) must not overwrite each other's token."""
    port = current_app.config.get("ALLOWED_PORT")
    return f"{COOKIE}_{port}" if port else COOKIE


def _matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def check_token():
    """``before_request``: let a request through that holds the token; a ``?token=`` that matches becomes the
    cookie (and a redirect to the URL without it); anything else is a 401."""
    token = current_app.config.get("ACCESS_TOKEN")
    if token is None or request.path.startswith("/static/"):  # the stylesheet and script hold nothing of a store
        return None
    query = request.args.get("token")
    if query is not None and _matches(query, token):
        rest = [(k, v) for k, v in request.args.items(multi=True) if k != "token"]
        target = request.path + ("?" + urlencode(rest) if rest else "")
        response = redirect(target, 303)
        response.set_cookie(cookie_name(), token, httponly=True, samesite="Strict", path="/")
        return response
    scheme, _, bearer = request.headers.get("Authorization", "").partition(" ")
    if _matches(request.cookies.get(cookie_name()), token) or (scheme.lower() == "bearer" and _matches(bearer.strip(), token)):
        return None
    from web.app import _error  # the 401 as every error: a page, or JSON under /api/

    response = current_app.make_response(_error(401, "Unauthorized", WHERE))
    response.headers["WWW-Authenticate"] = 'Bearer realm="rmq-inspect"'
    return response
