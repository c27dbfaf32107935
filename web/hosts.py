"""Which ``Host`` headers the viewer answers: a foreign one is hostile input (DNS rebinding).

A page on ``attacker.example`` can point its own name at 127.0.0.1 and read the viewer's answers from the
victim's browser; the request then says ``Host: attacker.example``. Bound to loopback the viewer answers only
loopback names (``127.0.0.1``, ``localhost``, ``[::1]``, the bound address), with the bound port or none.
Bound elsewhere it cannot know which names clients use: ``--allow-host NAME`` lists them (then every other name
is refused); without it any name is answered, and the exposure warning says so.

Config keys (set by ``create_app`` and ``make_web_server``): ``ALLOWED_HOSTS``, a tuple of lower-case names
(``None``: any), and ``ALLOWED_PORT``, the port a ``Host`` header may name (``None``: any).
"""

from __future__ import annotations

import ipaddress

from flask import Flask, abort, current_app, request

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def host_name(address: str) -> str:
    """An address as a ``Host`` header spells it: IPv6 in brackets, names in lower case."""
    address = address.strip().lower()
    if ":" in address and not address.startswith("["):
        return f"[{address}]"
    return address


def split_host(header: str) -> tuple[str, int | None] | None:
    """``'[::1]:8080'`` -> ``('[::1]', 8080)``; None for a header that is no ``host[:port]``."""
    header = header.strip().lower()
    if header.startswith("["):
        name, bracket, rest = header.partition("]")
        name += bracket
        if not bracket:
            return None
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return None
    else:
        name, colon, port_text = header.partition(":")
        rest = colon + port_text
    if not name or rest and not rest.startswith(":"):
        return None
    if not rest:
        return name, None
    port_text = rest[1:]
    if not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5 and int(port_text) <= 65535):
        return None
    return name, int(port_text)


def allowed(header: str | None, names: tuple[str, ...] | None, port: int | None) -> bool:
    """Whether a request with this ``Host`` header may be answered."""
    if header is None or names is None:  # no header: no browser sent it (HTTP/1.0 tools); no list: any name
        return True
    parts = split_host(header)
    if parts is None:
        return False
    name, given_port = parts
    return name in names and (given_port is None or port is None or given_port == port)


def restrict(app: Flask, bound: str | None, port: int | None, extra: tuple[str, ...] = (), *,
             loopback: bool = True) -> None:
    """Set which names ``app`` answers once it is bound to ``bound:port`` (``loopback``: that address is
    this machine only). ``extra`` are the ``--allow-host`` names."""
    if loopback or extra:
        names = {*LOOPBACK_NAMES, *(host_name(n) for n in extra)}
        if bound:
            names.add(host_name(bound))
        app.config["ALLOWED_HOSTS"] = tuple(sorted(names))
    else:
        app.config["ALLOWED_HOSTS"] = None
    app.config["ALLOWED_PORT"] = port or None


def check_host() -> None:
    """``before_request``: refuse a foreign ``Host`` with a 400 that holds nothing from the store."""
    names = current_app.config.get("ALLOWED_HOSTS")
    header = request.environ.get("HTTP_HOST")
    if not allowed(header, names, current_app.config.get("ALLOWED_PORT")):
        abort(400, description=f"this viewer does not answer to the host name {header[:100]!r} "
                               f"(it answers to {', '.join(names)}): a foreign Host header is refused, "
                               "see --allow-host")
