"""Who may read the viewer: on loopback anyone on this machine (as ever); bound elsewhere, a browser or client that
holds the token (as Jupyter does it).

``rmq-inspect web --host 0.0.0.0`` makes a random token at start and prints ``http://HOST:PORT/?token=…``
(``--token VALUE`` or ``RMQ_INSPECT_TOKEN`` choose it). The first visit with ``?token=`` sets an HttpOnly,
SameSite=Strict cookie and redirects to the same URL without the token (so it stays out of the history, the
Referer and screenshots); API clients send ``Authorization: Bearer TOKEN``. Anything else is a 401 saying where
the token is printed. Tokens are compared in constant time (``hmac.compare_digest``).

A workshop room (``--workshop``, ``web.live``) has a second token, the trainer's: ``?trainer=`` sets a cookie of its
own (so a participant's cookie never drives the room), and a browser holding it may read the viewer too.

Config keys (set by ``web.app.serve``): ``ACCESS_TOKEN``, the token (``None``: no token asked); ``TRAINER_TOKEN``,
the trainer's (``None``: no workshop room).
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import urlencode

from flask import current_app, g, redirect, request

COOKIE = "rmq_inspect_token"
TRAINER_COOKIE = "rmq_inspect_trainer"
ENV = "RMQ_INSPECT_TOKEN"
TRAINER_ENV = "RMQ_INSPECT_TRAINER_TOKEN"
WHERE = ("this viewer is not on loopback, so it needs its token: open the URL with ?token=... that "
         "`rmq-inspect web` printed on the terminal it runs in (API clients: Authorization: Bearer TOKEN)")


def new_token() -> str:
    """A random token (32 bytes of ``secrets``, URL-safe)."""
    return secrets.token_urlsafe(32)


def cookie_name(base: str = COOKIE) -> str:
    """The cookie's name, with the viewer's port: cookies are not kept apart by port, and two viewers on one
    machine (two rooms, two stores) must not overwrite each other's token."""
    port = current_app.config.get("ALLOWED_PORT")
    return f"{base}_{port}" if port else base


def _matches(given: str | None, token: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def _bearer() -> str | None:
    scheme, _, bearer = request.headers.get("Authorization", "").partition(" ")
    return bearer.strip() if scheme.lower() == "bearer" else None


def is_trainer() -> bool:
    """Whether this request comes from the trainer's browser (its cookie) or client (``Bearer`` trainer token)."""
    if "rmq_trainer" not in g:
        trainer = current_app.config.get("TRAINER_TOKEN")
        g.rmq_trainer = trainer is not None and (_matches(request.cookies.get(cookie_name(TRAINER_COOKIE)), trainer)
                                                 or _matches(_bearer(), trainer))
    return g.rmq_trainer


def admitted() -> bool:
    """Whether this request may read the viewer: no token asked, or it holds the token or the trainer's."""
    token = current_app.config.get("ACCESS_TOKEN")
    return (token is None or _matches(request.cookies.get(cookie_name()), token) or _matches(_bearer(), token)
            or is_trainer())


def _to_cookie(query: str, cookie: str, value: str):
    """A redirect to this URL without ``?query=`` that sets ``cookie``."""
    rest = [(k, v) for k, v in request.args.items(multi=True) if k != query]
    response = redirect(request.path + ("?" + urlencode(rest) if rest else ""), 303)
    response.set_cookie(cookie, value, httponly=True, samesite="Strict", path="/")
    return response


def check_token():
    """``before_request``: let a request through that holds the token (or the trainer's); a ``?token=`` (or
    ``?trainer=``) that matches becomes the cookie (and a redirect to the URL without it); anything else is a
    401 (a wrong trainer token a 403)."""
    if request.path.startswith("/static/"):  # the stylesheet and script hold nothing of a store
        return None
    from web.app import _error  # the 401 as every error: a page, or JSON under /api/

    trainer = current_app.config.get("TRAINER_TOKEN")
    if trainer is not None and "trainer" in request.args:
        if _matches(request.args["trainer"], trainer):
            return _to_cookie("trainer", cookie_name(TRAINER_COOKIE), trainer)
        return _error(403, "Forbidden", "this is not the trainer's token: the trainer URL (…?trainer=…) is printed on "
                                        "the terminal `rmq-inspect web --workshop` runs in")
    token = current_app.config.get("ACCESS_TOKEN")
    if token is None:
        return None
    query = request.args.get("token")
    if query is not None and _matches(query, token):
        return _to_cookie("token", cookie_name(), token)
    if admitted():
        return None
    response = current_app.make_response(_error(401, "Unauthorized", WHERE))
    response.headers["WWW-Authenticate"] = 'Bearer realm="rmq-inspect"'
    return response
