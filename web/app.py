"""The Flask application factory and the server ``rmq-inspect web`` runs.

``create_app(store_or_path)`` keeps one open, read-only ``Store`` in ``app.extensions["rmq_store"]``; every
request reads from it and none names a file path. Requests run at once, each in its own server thread (a bounded
pool, :class:`_Workers`); the store's walk for the overview runs once, in the background, from the start. Only GET (and HEAD) routes exist, but for a workshop room's two POSTs (``web.live``: the
trainer's step, an answer), which change only the room's state in memory. Errors never surface as
a 500 page from the engine: ``BadInput`` is a 400, ``NotFound`` and any other ``StoreError`` (nothing
readable at that address) a 404, as HTML or, under ``/api/``, as JSON. An answer that may be shared is kept for
a second and given to the next requests for it (``web.microcache``, after every guard).
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Response

from inspector import version
from inspector.engine import (
    BadInput,
    NotFound,
    Store,
    StoreError,
    has_undecodable,
    is_utc,
    open_store,
    printable,
    survey_of,
    terminal_text,
)
from web import data, guard, microcache
from web.access import ENV, TRAINER_ENV, check_token, new_token
from web.data import Limits
from web.hosts import LOOPBACK_NAMES, check_host, restrict
from web.live import STREAM_PATH
from web.origin import check_origin

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def _printable(value):
    """Store bytes that are no UTF-8 arrive as lone surrogates, which neither a page nor a URL can encode:
    show them as \\xNN (Markup stays Markup)."""
    if isinstance(value, str) and has_undecodable(value):
        return value.__class__(printable(value))
    return value


def _shown(value):
    """Every value a page shows (Jinja's finalize, after HTML escaping is decided): store text with its control
    characters, bidi overrides and isolates, line separators and undecodable bytes visibly escaped, as on a
    terminal (``terminal_text``): U+202E would reorder the page's text, a C1 control or NUL would vanish. Line
    feeds and tabs stay (bodies in <pre>). Markup stays Markup: escaping a character creates no tag."""
    if isinstance(value, str):
        shown = terminal_text(value, multiline=True)
        return value if shown is value else value.__class__(shown)
    return value


class _Flask(Flask):
    def url_for(self, endpoint: str, *args, **values) -> str:
        return super().url_for(endpoint, *args, **{k: _printable(v) for k, v in values.items()})


def create_app(store_or_path: Store | str | Path, test_config: dict | None = None) -> Flask:
    """The web viewer on ``store_or_path`` (an open ``Store``, or a store directory opened here, read-only; a
    directory that is no store root is ``BadInput``)."""
    app = _Flask(__name__)
    app.jinja_env.finalize = _shown
    app.jinja_env.globals["rmq_version"] = version()  # the page footer
    # loopback names only until make_web_server knows the address and port (a test client says "localhost")
    app.config.from_mapping(LIMITS=Limits(), ALLOWED_HOSTS=LOOPBACK_NAMES, ALLOWED_PORT=None, ACCESS_TOKEN=None,
                           **guard.DEFAULTS)
    app.json.sort_keys = False
    if test_config is not None:
        app.config.update(test_config)
    # a path: BadInput naming it when it is no store root (no viewer of "0 problems" on a wrong folder)
    store = store_or_path if isinstance(store_or_path, Store) else open_store(store_or_path)
    app.extensions["rmq_store"] = store
    app.extensions["rmq_limits"] = app.config["LIMITS"]
    survey_of(store)  # the overview's walk starts now, in the background, once per store (closing it stops it)
    data.start_census(store)  # and the census of its files

    from web import api, compare, live, pages, salvage, workshop

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(workshop.bp)
    app.register_blueprint(compare.bp)
    app.register_blueprint(salvage.bp)
    if app.config.get("COMPARE") is not None:  # ``--compare B``: the second store, opened by the caller
        compare.install(app, app.config["COMPARE"])
    if app.config.get("WORKSHOP"):  # a workshop room (``--workshop``): its routes exist only then
        live.install(app)
    app.extensions["rmq_buckets"] = guard.Buckets()
    app.before_request(guard.start_clock)  # first: Server-Timing counts the checks too
    app.before_request(check_host)
    app.before_request(check_token)  # after the Host check: a foreign Host is refused before anything else
    app.before_request(check_origin)  # a POST (a workshop room's) only from the viewer's own pages
    app.before_request(guard.rate_limit)  # after the token: a stranger's requests take no client's turns
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(StoreError, _store_error)
    app.register_error_handler(InternalServerError, _http_error)
    app.after_request(_headers)
    app.after_request(guard.finish)  # runs before _headers (reverse order): a replaced answer gets them too
    microcache.install(app)  # last: its lookup runs after every guard, its keeping before finish and _headers
    return app


def _wants_json() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _error(status: int, title: str, message: str):
    if _wants_json():
        return jsonify({"status": status, "error": title, "message": message}), status
    return render_template("error.html", status=status, title=title, message=message), status


def _http_error(e: HTTPException):
    if e.code == 405:
        response = _error(405, e.name, "this viewer is read-only: only GET requests")
        return response[0], 405, {"Allow": "GET, HEAD"}
    return _error(e.code or 500, e.name, e.description or "")


def _store_error(e: StoreError):
    if isinstance(e, BadInput):
        return _error(400, "Bad Request", str(e))
    if isinstance(e, NotFound):
        return _error(404, "Not Found", str(e))
    return _error(404, "Not Found", f"nothing readable here: {e}")


def _headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Frame-Options"] = "DENY"
    if response.mimetype == "text/html":
        response.headers["Cache-Control"] = "no-store"
    return response


class _Workers:
    """WSGI wrapper letting at most ``workers`` requests run through the app at once: the threaded server gives
    each connection its own thread, and the read-only store is shared by them (its lazily built readers are made
    under locks; the long walk of the overview runs once, in the background: ``survey_of``). So a slow request
    (a long chain walk, a big page) holds up no other. A request that waits longer than ``busy_seconds`` for a
    free worker gets a 503 instead of hanging."""

    def __init__(self, wsgi_app, workers: int = 8, busy_seconds: float = 30.0):
        self.wsgi_app = wsgi_app
        self.workers = workers
        self.busy_seconds = busy_seconds
        self.slots = threading.BoundedSemaphore(workers)

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == STREAM_PATH:  # a workshop room's event stream waits, it takes no worker
            return self.wsgi_app(environ, start_response)  # (and is never read whole: it lasts ~25 s)
        if not self.slots.acquire(timeout=self.busy_seconds):
            return _busy(environ, self.busy_seconds)(environ, start_response)
        try:
            result = self.wsgi_app(environ, start_response)
            try:
                return list(result)
            finally:
                if hasattr(result, "close"):
                    result.close()
        finally:
            self.slots.release()

    @contextmanager
    def all_busy(self) -> Iterator[None]:
        """Hold every worker (what a request meets when ``workers`` slow ones run)."""
        for _ in range(self.workers):
            self.slots.acquire()
        try:
            yield
        finally:
            for _ in range(self.workers):
                self.slots.release()


def _busy(environ, seconds: float) -> Response:
    message = f"the viewer is busy with another request (waited {seconds:g} s); try again"
    headers = {"Retry-After": "5", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
    path = environ.get("PATH_INFO", "")
    if path == "/api" or path.startswith("/api/"):
        body = json.dumps({"status": 503, "error": "Service Unavailable", "message": message})
        return Response(body, 503, headers, mimetype="application/json")
    return Response(message + "\n", 503, headers, mimetype="text/plain")


def is_loopback(host: str) -> bool:
    """True when ``host`` (an address or a name) only ever means this machine."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback for i in infos)


def exposure_warning(host: str, allow_hosts: tuple[str, ...] = (), *, token: bool = False) -> str | None:
    """The stderr warning for a server reachable from other machines (None on loopback); ``token``: a token is
    required to read it (``web.access``)."""
    if is_loopback(host):
        return None
    what = "every interface" if host in ("", "0.0.0.0", "::", "[::]") else host
    names = (f"It answers only to the host names {', '.join(allow_hosts)}, the bound address and loopback names."
             if allow_hosts else "It answers requests naming any host (name yours with --allow-host to refuse "
             "the others, as a DNS-rebinding page would send).")
    login = ("Only a browser or client holding the token printed below reads it: give that URL only to those who may "
             "read every message body in the store." if token else
             "It has no login and shows every message body in the store.")
    return (f"rmq-inspect web: WARNING: listening on {what}, so other machines can reach this viewer. {login} "
            f"{names} Use --host 127.0.0.1 to keep it on this machine.")


def no_token_warning(host: str) -> str:
    """The loud warning ``--no-token`` prints: anyone who reaches the port reads every message body."""
    bar = "!" * 78
    return (f"{bar}\nrmq-inspect web: WARNING: --no-token: NO TOKEN IS ASKED. Anyone who can reach {host} on this "
            f"port reads every message body in this store, with no login. Drop --no-token to require a token.\n{bar}")


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # tests and embedding callers do not want access logs
        pass


def make_web_server(app: Flask, host: str = "127.0.0.1", port: int = 8080, *, quiet: bool = False,
                    allow_hosts: tuple[str, ...] = ()) -> BaseWSGIServer:
    """A threaded werkzeug development server for ``app`` (``--dev-server``; the tests' in-process servers) (port 0: any free port; see ``server.server_port``). ``app`` then
    answers only the Host names that server may be reached by (``web.hosts``)."""
    handler = _QuietHandler if quiet else None
    limits = app.extensions["rmq_limits"]
    server = make_server(host, port, _Workers(app, limits.workers, limits.busy_seconds), threaded=True,
                         request_handler=handler)
    restrict(app, host, server.server_port, allow_hosts, loopback=is_loopback(host))
    return server


class _AccessLog:
    """One werkzeug-style line per request on stderr (``"GET /path HTTP/1.1" 200``); the path is client input,
    so it goes through ``terminal_text``."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        status = []

        def recorded(code, headers, exc_info=None):
            status.append(code.split(" ", 1)[0])
            return start_response(code, headers, exc_info)

        try:
            return self.wsgi_app(environ, recorded)
        finally:
            path = environ.get("PATH_INFO", "") + ("?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else "")
            # the Common Log Format's time, with its zone (the output zone: UTC under web --utc)
            when = time.strftime("%d/%b/%Y:%H:%M:%S %z", time.gmtime() if is_utc() else time.localtime())
            line = (f'{environ.get("REMOTE_ADDR", "-")} - - [{when}] "{environ.get("REQUEST_METHOD", "")} '
                    f'{terminal_text(path[:2000])} {environ.get("SERVER_PROTOCOL", "")}" {status[-1] if status else "-"} -')
            with self.lock:
                print(line, file=sys.stderr, flush=True)


def stderr_discarded() -> bool:
    """Whether stderr goes to the null device (``2>/dev/null``, a launcher's DEVNULL): nobody reads an access log."""
    try:
        here, null = os.fstat(sys.stderr.fileno()), os.stat(os.devnull)
    except (AttributeError, OSError, ValueError):  # no stderr, or one with no file behind it (a test's capture)
        return False
    return (here.st_dev, here.st_ino) == (null.st_dev, null.st_ino)


class WaitressServer:
    """waitress (a production WSGI server: pure Python, so it runs on Linux, macOS and Windows with no C build)
    behind the interface of werkzeug's server that callers and tests use: ``server_port``, ``serve_forever``,
    ``shutdown``, ``server_close``. Its own request-size bounds and connection limit apply before the app."""

    def __init__(self, wsgi_app, host: str, port: int, threads: int, *, quiet: bool = False):
        import logging

        from waitress import create_server
        from waitress.wasyncore import close_all

        if quiet:  # its "Serving on" and queue-depth lines: tests and embedding callers do not want them
            logging.getLogger("waitress").setLevel(logging.ERROR)
        elif not stderr_discarded():  # waitress keeps no access log; the trainer sees the requests as with werkzeug's
            wsgi_app = _AccessLog(wsgi_app)  # (not written to /dev/null: a line a request, under a lock, for nobody)
        sockets: dict = {}  # our own map: a bind that fails (busy port) leaves its sockets there to close
        try:
            self._server = create_server(
                wsgi_app, map=sockets, host=host.strip("[]") or "0.0.0.0", port=port, threads=threads,
                max_request_header_size=64 * 1024,  # GET only: a URL and its headers, never a body to upload
                max_request_body_size=64 * 1024, connection_limit=200, channel_timeout=60,
                expose_tracebacks=False, ident="rmq-inspect")
        except BaseException:
            close_all(sockets)
            raise
        listen = getattr(self._server, "effective_listen", None)
        self.server_port = int(listen[0][1] if listen else self._server.effective_port)  # waitress: a str
        self._stopped = threading.Event()

    def serve_forever(self) -> None:
        try:
            self._server.run()
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` from another thread: its loop closes every socket itself (the trigger runs the
        thunk in the loop's thread, so no socket is closed under a poll), and an empty map ends the loop."""
        from waitress.wasyncore import close_all

        if self._stopped.is_set():
            return
        self._server.task_dispatcher.shutdown(timeout=5)  # requests in flight finish first
        self._server.trigger.pull_trigger(lambda: close_all(self._server._map))
        self._stopped.wait(5)

    def server_close(self) -> None:
        from waitress.wasyncore import close_all

        if not self._stopped.is_set():  # never served: no thread to finish
            self._server.task_dispatcher.shutdown(timeout=5)
        close_all(self._server._map)  # no loop runs now (stopped, or never started), so this thread may


def make_production_server(app: Flask, host: str = "127.0.0.1", port: int = 8080, *, quiet: bool = False,
                           allow_hosts: tuple[str, ...] = ()) -> WaitressServer:
    """``app`` on waitress (what ``rmq-inspect web`` runs). Twice as many server threads as ``Limits.workers``:
    the ``_Workers`` gate still lets ``workers`` requests through at once and answers a 503 to one that waits
    ``busy_seconds``, rather than waitress queueing it with no bound on the wait."""
    limits = app.extensions["rmq_limits"]
    # a workshop room's event streams each hold a thread while open (web.live bounds them): so many more threads,
    # that the pages keep theirs
    streams = app.config["ROOM_STREAMS"] if "rmq_room" in app.extensions else 0
    server = WaitressServer(_Workers(app, limits.workers, limits.busy_seconds), host, port,
                            threads=2 * limits.workers + streams, quiet=quiet)
    restrict(app, host, server.server_port, allow_hosts, loopback=is_loopback(host))
    return server


def _bad_token(token: str | None) -> bool:
    return token is not None and (not token.strip() or not token.isprintable() or not token.isascii())


def serve(store: Store, host: str = "127.0.0.1", port: int = 8080, allow_hosts: tuple[str, ...] = (), *,
          dev_server: bool = False, token: str | None = None, no_token: bool = False, workshop: bool = False,
          trainer_token: str | None = None, compare: Store | None = None) -> int:
    """Serve the viewer on ``host:port`` until interrupted (``rmq-inspect web``): on waitress, or on werkzeug's
    development server with ``dev_server`` (``--dev-server``). Bound to loopback no token is asked unless
    ``token`` is given; bound elsewhere ``token`` (or a random one) is required unless ``no_token``.
    ``workshop`` (``--workshop``): a workshop room (``web.live``), driven by whoever holds ``trainer_token`` (or
    a random one), wherever it is bound. ``compare`` (``--compare B``): a second store, diffed at ``/diff``."""
    if _bad_token(token):
        print(f"rmq-inspect web: the token (--token or {ENV}) must be printable ASCII and not empty", file=sys.stderr)
        return 2
    if trainer_token is not None and not workshop:
        print("rmq-inspect web: --trainer-token is for a workshop room: add --workshop", file=sys.stderr)
        return 2
    if _bad_token(trainer_token):
        print(f"rmq-inspect web: the trainer token (--trainer-token or {TRAINER_ENV}) must be printable ASCII and "
              "not empty", file=sys.stderr)
        return 2
    loopback = is_loopback(host)
    if token is None and not loopback and not no_token:
        token = new_token()
    if no_token:
        token = None
    if workshop and trainer_token is None:
        trainer_token = new_token()
    if workshop and trainer_token == token:
        print("rmq-inspect web: the trainer token must differ from the participants' token (it drives the room)",
              file=sys.stderr)
        return 2
    app = create_app(store, {"WORKSHOP": workshop, "COMPARE": compare})
    app.config["ACCESS_TOKEN"] = token
    app.config["TRAINER_TOKEN"] = trainer_token if workshop else None
    make = make_web_server if dev_server else make_production_server
    try:
        server = make(app, host, port, allow_hosts=allow_hosts)
    except ImportError:
        print("rmq-inspect web: waitress is not installed: pip install 'rmq-inspect[web]' (or run with "
              "--dev-server)", file=sys.stderr)
        return 2
    except (OSError, SystemExit) as e:  # werkzeug prints the reason and exits on a busy port
        reason = getattr(e, "strerror", None) or "see above"
        print(f"rmq-inspect web: cannot listen on {host}:{port}: {reason}", file=sys.stderr)
        return 2
    warning = exposure_warning(host, allow_hosts, token=token is not None)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    if no_token and not loopback:
        print(no_token_warning(host or "every interface"), file=sys.stderr, flush=True)
    if host in ("", "0.0.0.0", "::", "[::]"):  # a URL names a host: this machine's name, as Jupyter prints it
        host = socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    kind = "werkzeug's development server" if dev_server else "waitress"
    print(f"rmq-inspect web: serving {terminal_text(str(store.root))} read-only on http://{shown}:{server.server_port}/ (Ctrl-C stops; {kind})",
          flush=True)
    base = f"http://{shown}:{server.server_port}"
    if token is not None:  # the one place the token is shown: the terminal of whoever started the viewer
        print(f"rmq-inspect web: open {base}/?token={token}" + (" (participants)" if workshop else ""), flush=True)
    elif workshop:
        print(f"rmq-inspect web: participants open {base}/", flush=True)
    if workshop:  # the trainer's URL: only for the trainer's browser (it drives every participant's page)
        print(f"rmq-inspect web: trainer opens {base}/room?trainer={trainer_token} (keep it off the projector)",
              flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if workshop:
            app.extensions["rmq_room"].close()  # the event streams end now, not in up to 25 s
        server.server_close()
    return 0
