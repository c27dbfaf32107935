"""The read-only promise (issue 7): every read command, the TUI and the web app leave a store exactly as it was.

Two proofs over one run of everything (the module fixture): a snapshot of every path under the store
(directories too; type, mode, size, mtime, sha256 of the bytes) is the same before and after, and an audit hook
(``sys.addaudithook``) saw every open / mmap / lock / rename / remove of a path inside the store and none of
them could write, lock or change anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import mmap
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from inspector.cli.main import main as cli_main
from inspector.engine import Message, Store
from tests.store_digest import content_hash

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_store"
pytestmark = pytest.mark.timeout(120)

# -- the audit recorder: installed once for the process (hooks cannot be removed), idle unless watching ----------

_WATCH: dict = {"root": None, "events": []}  # a plain global: the engine's worker threads must be seen too
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CHANGES = {"os.rename", "os.replace", "os.remove", "os.unlink", "os.rmdir", "os.mkdir", "os.truncate", "os.chmod",
            "os.chown", "os.utime", "os.link", "os.symlink", "shutil.rmtree", "shutil.move", "shutil.copyfile"}
_LOCKS = {"fcntl.lockf", "fcntl.flock", "fcntl.fcntl"}


def _fd_path(fd) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{int(fd)}")
    except (OSError, ValueError, TypeError):
        return None


def _inside(path) -> str | None:
    root = _WATCH["root"]
    if path is None or isinstance(path, int):
        return None
    try:
        text = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return None
    return text if text == root or text.startswith(root + os.sep) else None


def _hook(event: str, args: tuple) -> None:
    if _WATCH["root"] is None:
        return
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        if isinstance(path, int):
            path = _fd_path(path)
        where = _inside(path)
        if where:
            writable = bool(mode and set(str(mode)) & set("wax+")) or bool((flags or 0) & _WRITE_FLAGS)
            _WATCH["events"].append(("open", where, "write" if writable else "read"))
    elif event == "mmap.__new__":
        fileno, _length, access = args[0], args[1], args[2]
        where = _inside(_fd_path(fileno)) if fileno not in (-1, None) else None
        if where:
            _WATCH["events"].append(("mmap", where, "read" if access == mmap.ACCESS_READ else "write"))
    elif event in _LOCKS:
        where = _inside(_fd_path(args[0]))
        if where:
            _WATCH["events"].append((event, where, "lock"))
    elif event in _CHANGES:
        for a in args[:2]:
            where = _inside(a)
            if where:
                _WATCH["events"].append((event, where, "change"))


sys.addaudithook(_hook)


@contextlib.contextmanager
def watching(root: Path):
    _WATCH["root"], _WATCH["events"] = str(root.resolve()), []
    try:
        yield _WATCH["events"]
    finally:
        _WATCH["root"] = None


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path under root (root itself too): kind, mode, size, mtime and, for files, the sha256 of the bytes."""
    out = {}
    for path in [root, *sorted(root.rglob("*"))]:
        st = path.lstat()
        # extent by extent for large sparse files (a writer-made store's 1 GiB segment, its index files)
        digest = content_hash(path) if path.is_file() else None
        out[str(path.relative_to(root))] = (st.st_mode, st.st_size if digest else None, st.st_mtime_ns, digest)
    return out


# -- everything a user can do that reads a store ---------------------------------------------------------------


def _cli(*argv: str) -> int:
    stdin = sys.stdin
    sys.stdin = io.StringIO("")  # exercises asks questions: no answers
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return cli_main(list(argv))
    finally:
        sys.stdin = stdin


def _facts(root: Path) -> dict:
    with Store(root) as s:
        msgs = [e for e in s.entries() if isinstance(e, Message)]
        m = next(x for x in msgs if x.keys and x.unique_key)
        return {"offset": m.physical_offset, "topic": m.topic, "queue": m.queue_id, "key": m.keys[0],
                "msg_id": m.msg_id, "uniq": m.unique_key, "index": s.index_files()[0].name}


def _commands(root: Path, f: dict) -> list[list[str]]:
    r = str(root)
    return [
        ["info", r], ["info", r, "--json"],
        ["messages", r], ["messages", r, "--json", "--decompress"], ["messages", r, "--topic", f["topic"]],
        ["messages", r, "--topic", f["topic"], "--queue", str(f["queue"]), "--json"],
        ["messages", r, "--follow", "--from", "0", "--idle-timeout", "0.3", "--json"],
        ["show", r, str(f["offset"])], ["show", r, f["msg_id"], "--json"], ["show", r, f["uniq"]],
        ["key", r, f["topic"], f["key"]], ["key", r, f["topic"], f["key"], "--json"],
        ["chain", r, f["topic"], f["key"]], ["chain", r, f["topic"], f["key"], "--json"],
        ["decode-id", f["msg_id"], "--store", r], ["decode-id", f["uniq"], "--store", r, "--json"],
        ["hex", r, str(f["offset"])], ["hex", r, "0", "--length", "600", "--json"],
        ["verify", r], ["verify", r, "--json"],
        ["tour", r, "--all"], ["tour", r, "--json"],
        ["exercises", r, "--answer-key"], ["exercises", r, "--answer-key", "--json"], ["exercises", r],
        ["groups", r], ["groups", r, "--json"],  # consumer groups (issue 30): the sample store's groups
        ["group", r, "fulfillment-consumer"], ["group", r, "billing-consumer", "--json"],
        [r],  # bare `rmq-inspect STORE` (info when not on a terminal)
    ]


def _run_tui(root: Path) -> list[str]:
    from inspector.tui.app import create_app

    visited = []

    async def script():
        with Store(root) as store:
            app = create_app(store)
            async with app.run_test(size=(120, 36)) as pilot:
                # escape after 5: the msgId screen's id field has the focus (digits typed there are an id)
                for key in ("1", "2", "3", "4", "5", "escape", "6", "7", "8", "0", "question_mark", "escape", "1"):
                    await pilot.press(key)
                    for _ in range(3):
                        await pilot.pause()
                        await app.workers.wait_for_complete()
                    visited.append(type(app.screen).__name__)
                await pilot.press("q")

    asyncio.run(script())
    return visited


def _web_urls(f: dict) -> dict[str, list[str]]:
    t, k, o = f["topic"], f["key"], f["offset"]
    pages = {
        "/": ["/"], "/messages": ["/messages", f"/messages?topic={t}", f"/messages?topic={t}&queue={f['queue']}"],
        "/message/<offset>": [f"/message/{o}", f"/message/{o}?body=hex", f"/message/{o}?body=json"],
        "/hex": [f"/hex?offset={o}", "/hex?offset=0"], "/chain": [f"/chain?topic={t}&key={k}"],
        "/slot": ["/slot", f"/slot?file={f['index']}&slot=1"], "/teach": ["/teach", "/teach?step=3"],
        "/resolve": [f"/resolve?id={f['msg_id']}", f"/resolve?id={f['uniq']}"],
        "/story": [f"/story?ref={o}", f"/story?ref={f['uniq']}"],
        "/search": [f"/search?q={k}&fixed=1", f"/search?q={t}&in=body,keys&topic={t}"],
    }
    urls = {**pages, **{"/api" + rule: [("/api" + u if u != "/" else "/api/") for u in us] for rule, us in pages.items()}}
    urls["/api/"] = urls.pop("/api/")
    # the hex page's "jump to" as typed (0x, a msgId: a redirect to the decimal page) and its hex addresses
    urls["/hex"] = urls["/hex"] + [f"/hex?offset={hex(o)}&length=64&addr=hex", f"/hex?offset={f['msg_id']}"]
    urls.update({"/tour": ["/tour"], "/exercises": ["/exercises"], "/api/tour": ["/api/tour"],
                 "/api/tour/<number>": ["/api/tour/1", "/api/tour/2"], "/api/exercises": ["/api/exercises"],
                 "/timer": ["/timer"], "/api/timer": ["/api/timer"],
                 "/groups": ["/groups", "/groups?name=fulfillment-consumer"],
                 "/api/groups": ["/api/groups", "/api/groups?name=billing-consumer"],
                 "/stats": ["/stats", "/stats?by=tag"], "/api/stats": ["/api/stats?by=minute"],
                 "/diff": ["/diff"], "/api/diff": ["/api/diff"],
                 "/salvage": ["/salvage"], "/api/salvage": ["/api/salvage"]})
    return urls


def _run_web(root: Path, f: dict) -> int:
    from inspector.engine import open_store
    from web.app import create_app

    other = open_store(root)  # --compare: the store against itself, so /diff reads both under the same watch
    app = create_app(root, {"COMPARE": other})
    try:
        client = app.test_client()
        for _ in range(600):  # the comparison runs in the background: done before anything is closed
            if client.get("/api/diff").get_json()["done"] and client.get("/api/salvage").get_json()["done"]:
                break  # and the salvage plan (verify first), started by its first request
            time.sleep(0.05)
        urls = _web_urls(f)
        rules = {str(r) for r in app.url_map.iter_rules() if r.endpoint != "static"}
        assert rules <= set(urls), f"routes this test does not visit: {rules - set(urls)}"
        n = 0
        for rule in sorted(rules):
            for url in urls[rule]:
                r = client.get(url, follow_redirects=True)
                assert r.status_code == 200, (url, r.status_code, r.data[:200])
                n += 1
        return n
    finally:
        app.extensions["rmq_store"].close()
        other.close()


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    """A copy of the sample store as a running broker leaves it (lock, abort), and what every reader did to it."""
    root = tmp_path_factory.mktemp("readonly") / "store"
    shutil.copytree(SAMPLE, root)
    (root / "abort").write_text("4242")
    facts = _facts(root)
    before = snapshot(root)
    codes = {}
    with watching(root) as events:
        for argv in _commands(root, facts):
            codes[" ".join(argv[:1] + argv[2:])] = _cli(*argv)
        screens = _run_tui(root)
        pages = _run_web(root, facts)
    return root, before, snapshot(root), list(events), codes, screens, pages


def test_every_reader_ran(everything):
    _, _, _, _, codes, screens, pages = everything
    assert {c: v for c, v in codes.items() if v not in (0, 4)} == {}  # 4: verify reports the abort-free problems
    assert len(set(screens)) >= 9 and pages >= 35


def test_nothing_changed_and_nothing_was_created(everything):
    _, before, after, _, _, _, _ = everything
    assert set(after) == set(before)  # no file or directory created or removed
    assert {p: (before[p], after[p]) for p in before if before[p] != after[p]} == {}


def test_every_open_was_read_only_and_nothing_was_locked(everything):
    root, _, _, events, _, _, _ = everything
    bad = [e for e in events if e[2] != "read"]
    assert bad == []
    opened = {os.path.relpath(e[1], root) for e in events if e[0] == "open"}
    mapped = {os.path.relpath(e[1], root) for e in events if e[0] == "mmap"}
    # the hook saw the reads: every segment, queue and index file was opened and mapped read-only
    assert {f"commitlog/{p.name}" for p in (root / "commitlog").iterdir()} <= mapped
    assert {f"index/{p.name}" for p in (root / "index").iterdir()} <= mapped
    assert "checkpoint" in opened and any(p.startswith("consumequeue/") for p in mapped)
    assert "lock" not in opened  # the lock file is not even opened by a reader


def test_the_recorder_sees_writes_and_locks(tmp_path):
    """The proof above is only as good as the hook: it must catch a write, a writable mmap and a lock."""
    import fcntl

    (tmp_path / "f").write_bytes(b"1234")
    with watching(tmp_path) as events:
        with open(tmp_path / "f", "r+b") as fh:
            mm = mmap.mmap(fh.fileno(), 0)
            mm.close()
            fcntl.lockf(fh.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0)
        os.close(os.open(tmp_path / "f", os.O_RDONLY))
        os.rename(tmp_path / "f", tmp_path / "g")
    kinds = [(e[0], e[2]) for e in events]
    assert ("open", "write") in kinds and ("mmap", "write") in kinds and ("fcntl.lockf", "lock") in kinds
    assert ("open", "read") in kinds and ("os.rename", "change") in kinds


def test_the_web_and_cli_report_abort_as_a_state_not_damage(everything):
    root = everything[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["info", str(root), "--json"]) == 0
    data = json.loads(out.getvalue())
    assert data["shutdown"] == "broker running or crashed (abort file present)"
    assert not [p for p in data["problems"] if "abort" in p["reason"]]
