"""A workshop room's stepping under a full class (issue 34 item 3): ``python benchmarks/workshop_room.py [--quick]
[--participants N] [--steps K] [--interval S] [--store DIR]``.

``rmq-inspect web STORE --workshop --port 0`` runs in its own process (waitress, loopback). ``--participants``
clients (30; ``--quick``: 4) each hold the room's event stream open (reconnecting when the server ends it, as
EventSource does) and, at each ``step`` event, load that tour page as a following browser does. The trainer
steps ``--steps`` times (8; ``--quick``: 3), one every ``--interval`` s (3). Figures: from the trainer's POST to
each participant's event, and to its tour page loaded (p50, p95, max). Goal: every participant has the trainer's
step loaded within 2 s, no error. Exit 1 when missed. Loopback only; it stops by itself.
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
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOAL_SECONDS = 2.0


def start(root: Path) -> tuple[subprocess.Popen, str, str]:
    """The viewer in a workshop room; its base URL and the trainer token it printed."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.Popen([sys.executable, "-m", "inspector.cli.main", "web", str(root), "--port", "0",
                             "--workshop"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    lines = [proc.stdout.readline() for _ in range(3)]
    base = re.search(r"read-only on (http://127\.0\.0\.1:\d+)/", lines[0])
    trainer = re.search(r"/room\?trainer=(\S+)", "".join(lines))
    if not base or not trainer:
        proc.kill()
        raise SystemExit(f"workshop_room: the viewer did not start: {lines!r}")
    return proc, base.group(1), trainer.group(1)


class Figures:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.posted: dict[int, float] = {}  # step -> when the trainer's POST was sent
        self.event: list[float] = []
        self.loaded: list[float] = []
        self.errors: list[str] = []
        self.seen: dict[tuple[int, int], bool] = {}  # (participant, round) -> loaded


def participant(number: int, base: str, figures: Figures, stop: threading.Event) -> None:
    host = urlsplit(base).netloc
    pages = http.client.HTTPConnection(host, timeout=30)  # one kept-alive connection for pages, as a browser
    done: set[int] = set()
    while not stop.is_set():
        stream = http.client.HTTPConnection(host, timeout=40)
        try:
            stream.request("GET", "/room/events")
            response = stream.getresponse()
            if response.status != 200:
                raise OSError(f"events: {response.status}")
            name = None
            while not stop.is_set():
                line = response.readline()
                if not line:
                    break  # the server ended this stream (~25 s): reconnect
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: ") and name == "step":
                    step = int(re.search(r'"step": (\d+)', line).group(1))
                    now = time.monotonic()
                    with figures.lock:
                        posted = figures.posted.get(step)
                    if posted is None or step in done:
                        continue  # the current step on (re)connect, not a change
                    done.add(step)
                    pages.request("GET", f"/tour?step={step}")
                    page = pages.getresponse()
                    page.read()
                    loaded = time.monotonic()
                    with figures.lock:
                        if page.status != 200:
                            figures.errors.append(f"participant {number}: /tour?step={step}: {page.status}")
                        figures.event.append(now - posted)
                        figures.loaded.append(loaded - posted)
        except (OSError, http.client.HTTPException) as e:
            if not stop.is_set():
                with figures.lock:
                    figures.errors.append(f"participant {number}: {e!r}")
                time.sleep(1)
        finally:
            stream.close()
    pages.close()


def drive(base: str, trainer: str, steps: int, interval: float, figures: Figures) -> None:
    host = urlsplit(base).netloc
    conn = http.client.HTTPConnection(host, timeout=30)
    for step in range(2, steps + 2):
        time.sleep(interval)
        with figures.lock:
            figures.posted[step] = time.monotonic()
        conn.request("POST", "/room/step", body=f"step={step}", headers={
            "Content-Type": "application/x-www-form-urlencoded", "Authorization": f"Bearer {trainer}"})
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            figures.errors.append(f"trainer: step {step}: {r.status}")
    time.sleep(interval)
    conn.close()


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1] if len(values) > 1 else values[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--participants", type=int)
    parser.add_argument("--steps", type=int)
    parser.add_argument("--interval", type=float, default=3.0)
    parser.add_argument("--store", type=Path, default=ROOT / "sample_store")
    args = parser.parse_args(argv)
    participants = args.participants or (4 if args.quick else 30)
    steps = args.steps or (3 if args.quick else 8)
    proc, base, trainer = start(args.store)
    figures, stop = Figures(), threading.Event()
    threads = [threading.Thread(target=participant, args=(n, base, figures, stop), daemon=True)
               for n in range(participants)]
    try:
        for t in threads:
            t.start()
        time.sleep(1.0)  # every stream open
        drive(base, trainer, steps, args.interval, figures)
    finally:
        stop.set()
        proc.terminate()
        proc.wait(10)
    expected = participants * steps
    print(f"workshop room: {participants} participants, {steps} steps every {args.interval:g} s (waitress, loopback)")
    for label, values in (("event", figures.event), ("page loaded", figures.loaded)):
        if values:
            print(f"  trainer's POST -> {label}: p50 {quantile(values, .5) * 1000:.0f} ms, p95 "
                  f"{quantile(values, .95) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms ({len(values)} of {expected})")
    for e in figures.errors[:10]:
        print(f"  error: {e}")
    ok = (len(figures.loaded) == expected and not figures.errors and max(figures.loaded) < GOAL_SECONDS)
    print(f"  goal: every participant on the trainer's step within {GOAL_SECONDS:g} s, no error: "
          f"{'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
