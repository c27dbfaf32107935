"""A workshop room on the web viewer (issue 34): ``python benchmarks/web_load.py [--quick] [--clients N]
[--seconds S] [--store DIR]``.

``rmq-inspect web STORE --port 0`` runs in its own process as a trainer starts it (waitress, loopback), and
``--clients`` clients (30; ``--quick``: 4) each request pages for ``--seconds`` (30; ``--quick``: 3), round robin
over ``/``, ``/messages``, ``/message/N``, ``/hex``, ``/chain``, ``/teach`` and ``/tour`` on the sample store (each
client on one kept-alive connection, as a browser keeps one). Goals: no error (every answer a 200, no refused or reset
connection) and a p95 latency under 300 ms. Exit 1 when a goal is missed. Loopback only; it stops by itself.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT)]

from inspector.engine import Message, Store  # noqa: E402

GOAL_P95_MS = 300.0


def pages(root: Path) -> list[str]:
    """The mix: each page kind once, on a message of the store that has keys."""
    with Store(root) as store:
        messages = [e for e in store.entries() if isinstance(e, Message)]
    keyed = next((m for m in messages if m.keys), messages[0])
    key = keyed.keys[0] if keyed.keys else ""
    offset = keyed.physical_offset
    return ["/", "/messages", f"/message/{offset}", f"/hex?offset={offset}",
            f"/chain?topic={quote(keyed.topic)}&key={quote(key)}", "/teach?step=3", "/tour?step=2"]


def start(root: Path, dev_server: bool = False) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.Popen([sys.executable, "-m", "inspector.cli.main", "web", str(root), "--port", "0",
                             *(["--dev-server"] if dev_server else [])],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    line = proc.stdout.readline()
    m = re.search(r"read-only on (http://127\.0\.0\.1:\d+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"web_load: the viewer did not start: {line!r}")
    return proc, m.group(1)


def load(base: str, urls: list[str], clients: int, seconds: float) -> tuple[list[tuple[str, float]],
                                                                          list[tuple[str, str]]]:
    """Every request's (url, latency in seconds) and every failure (url, what)."""
    stop_at = time.monotonic() + seconds
    latencies: list[tuple[str, float]] = []
    failures: list[tuple[str, str]] = []
    lock = threading.Lock()

    host, port = base.removeprefix("http://").split(":")

    def client(n: int) -> None:
        i = n
        conn = http.client.HTTPConnection(host, int(port), timeout=30)  # kept alive, as a browser keeps it
        while time.monotonic() < stop_at:
            url = urls[i % len(urls)]
            i += 1
            began = time.perf_counter()
            try:
                conn.request("GET", url)
                r = conn.getresponse()
                r.read()
                status = r.status
            except (OSError, http.client.HTTPException) as e:
                with lock:
                    failures.append((url, repr(e)))
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
                continue
            took = time.perf_counter() - began
            with lock:
                latencies.append((url, took))
                if status != 200:
                    failures.append((url, str(status)))
        conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 60)
    return latencies, failures


def _p95(sorted_ms: list[float]) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * 0.95))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="4 clients for 3 s (the suite's smoke run)")
    ap.add_argument("--clients", type=int)
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--store", type=Path, default=ROOT / "sample_store")
    ap.add_argument("--dev-server", action="store_true", help="werkzeug's development server (for an A/B)")
    args = ap.parse_args(argv)
    clients = args.clients or (4 if args.quick else 30)
    seconds = args.seconds or (3.0 if args.quick else 30.0)
    urls = pages(args.store)
    proc, base = start(args.store, args.dev_server)
    try:
        for url in urls:  # warm-up, untimed: caches filled, the tour computed, code imported
            urllib.request.urlopen(base + url, timeout=60).close()
        latencies, failures = load(base, urls, clients, seconds)
    finally:
        proc.terminate()
        proc.wait(10)
    if not latencies:
        print("web_load: no request completed", file=sys.stderr)
        return 1
    ms = sorted(x * 1000 for _, x in latencies)
    p95 = _p95(ms)
    ok_errors, ok_p95 = not failures, p95 < GOAL_P95_MS
    print(f"web viewer under load ({clients} clients for {seconds:g} s, {'werkzeug' if args.dev_server else 'waitress'}, {args.store.name}; pages: "
          f"{', '.join(u.split('?')[0] for u in urls)})")
    print("| row | measured | goal |\n|---|---|---|")
    print(f"| requests | {len(ms)} ({len(ms) / seconds:.0f}/s) | |")
    print(f"| errors | {len(failures)} | 0 {'met' if ok_errors else 'MISSED'} |")
    print(f"| p50 latency | {statistics.median(ms):.0f} ms | |")
    print(f"| p95 latency | {p95:.0f} ms | < {GOAL_P95_MS:.0f} ms {'met' if ok_p95 else 'MISSED'} |")
    print(f"| max latency | {ms[-1]:.0f} ms | |")
    for page in urls:  # which page costs most, for information
        page_ms = sorted(x * 1000 for u, x in latencies if u == page)
        if page_ms:
            print(f"| p95 of {page.split('?')[0]} | {_p95(page_ms):.0f} ms ({len(page_ms)} requests) | |")
    for url, what in failures[:10]:
        print(f"failure: {url} {what}")
    return 0 if ok_errors and ok_p95 else 1


if __name__ == "__main__":
    raise SystemExit(main())
