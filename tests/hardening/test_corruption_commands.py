"""Every command completes on every damaged store: the CLI (in-process), the web pages (Flask test client) and
the terminal UI (one headless Textual run per scenario, every screen visited, the finding on the problems screen).

No traceback anywhere, one-line errors and the documented exit codes: 0 ok, 1 not found, 2 bad input,
3 store error, 4 verify found problems.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from urllib.parse import quote

import pytest
from damage_scenarios import SAMPLE, TUI_STAND_IN
from external_tools import CONSOLE_SCRIPT, SETPRIV, need
from tui_wait import settle

from inspector.cli.main import main
from inspector.engine import Message, Store
from inspector.engine.model.errors import StoreError

pytestmark = pytest.mark.timeout(180)

ALLOWED = {"info": {0}, "messages": {0}, "show": {0, 1, 3}, "key": {0, 1}, "chain": {0, 1}, "hex": {0, 1, 3},
           "decode-id": {0, 1}, "verify": {0, 4}, "rebuild": {0}, "tour": {0}, "exercises": {0},
           # story and trace answer as show does (1: nothing there or no trace record, 3: the record unreadable);
           # preflight 4 when the next start would lose data or not start
           "story": {0, 1, 3}, "trace": {0, 1, 3}, "preflight": {0, 3, 4},
           # groups and group read config/ (1: no such group); grep 1 no hit, 3 no hit and a segment unreadable
           "groups": {0}, "group": {0, 1}, "grep": {0, 1, 3},
           "stats": {0, 3},  # stats 3: part of the log unread (the figures still printed)
           # salvage: 0 nothing lost, 4 data lost (the plan, or the store written), 2 a store it cannot write
           "salvage": {0, 2, 4}}


@pytest.fixture(scope="session")
def probe() -> dict:
    """What the commands ask about, read from the undamaged sample store: a topic, key, queue and ids."""
    with Store(SAMPLE) as s:
        m = next(e for e in s.entries() if isinstance(e, Message) and e.keys and e.unique_key)
        rare = min(s.topics(), key=lambda t: sum(q.message_count for q in s.queue_infos() if q.topic == t))
        return {"topic": m.topic, "key": m.keys[0], "queue": m.queue_id, "msg_id": m.msg_id,
                "unique_key": m.unique_key, "index": s.index_files()[0].name, "rare_topic": rare,
                "group": "billing-consumer"}  # a group of the sample store's consumerOffset.json


def _ids_of(ref: int | None, probe: dict) -> tuple[str, str]:
    """The offset msgId and unique key of the (undamaged) record at ``ref``, else the probe's."""
    if ref is not None:
        with Store(SAMPLE) as s:
            try:
                m = s.message_at(ref)
                return m.msg_id, m.unique_key or probe["unique_key"]
            except StoreError:
                pass
    return probe["msg_id"], probe["unique_key"]


def _commands(path: Path, ref: int | None, probe: dict, out: Path) -> list[list[str]]:
    p, t, k = str(path), probe["topic"], probe["key"]
    at = str(ref if ref is not None else 0)
    msg_id, uniq = _ids_of(ref, probe)
    return [
        ["info", p], ["info", p, "--json"],
        # a topic with few messages: the whole log is walked (every problem warned) but the table stays short
        ["messages", p, "--topic", probe["rare_topic"], "--limit", "1000"], ["messages", p, "--json", "--limit", "1000"],
        ["messages", p, "--topic", t, "--queue", str(probe["queue"]), "--json"],
        ["messages", p, "--from", at, "--limit", "3"],
        ["show", p, at], ["show", p, at, "--json"], ["show", p, msg_id], ["show", p, uniq, "--json"],
        ["key", p, t, k], ["key", p, t, k, "--json"], ["chain", p, t, k], ["chain", p, t, k, "--json"],
        ["hex", p, at], ["hex", p, at, "--json", "--length", "64"],
        ["decode-id", msg_id, "--store", p, "--json"],
        ["verify", p], ["rebuild", p, "--out", str(out / "rebuilt"), "--json"],
        ["tour", p, "--all"], ["exercises", p, "--answer-key", "--json", "--count", "4"],
        # the newer commands (issue 35): story and trace by each REF form, story by TOPIC KEY, preflight
        ["story", p, at], ["story", p, msg_id, "--json"], ["story", p, uniq, "--no-scan"], ["story", p, t, k, "--json"],
        ["trace", p, at], ["trace", p, uniq, "--json"], ["preflight", p], ["preflight", p, "--json"],
        ["groups", p], ["groups", p, "--json"], ["group", p, probe["group"]], ["group", p, probe["group"], "--json"],
        ["grep", p, k], ["grep", p, "-F", "--in", "keys,tags", "--json", k], ["grep", p, "order-1[0-9]+", "-i"],
        ["stats", p], ["stats", p, "--by", "tag", "--json"], ["stats", p, "--by", "minute"],
        ["salvage", p, "--plan"], ["salvage", p, "--plan", "--json"], ["salvage", p, "--out", str(out / "saved")],
    ]


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _check_one_line_error(argv, code: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err, (argv, err[-2000:])
    if code not in (0, 4):
        errors = [line for line in err.splitlines() if line.startswith("rmq-inspect:")]
        assert len(errors) == 1, (argv, err)


def test_every_cli_command_completes(damaged, probe, capsys, tmp_path):
    scenario, root, damage = damaged
    for argv in _commands(root, damage.ref, probe, tmp_path):
        code, out, err = _run(capsys, argv)
        assert code in ALLOWED[argv[0]], (argv, code, err[-1000:])
        if code == 1 and "--json" in argv and argv[0] in ("trace", "grep"):
            assert "Traceback" not in err, (argv, err)  # "nothing found" is the JSON itself (no records, no line)
        else:
            _check_one_line_error(argv, code, out, err)
        if code == 0 and "--json" in argv and argv[0] not in ("messages", "grep"):
            json.loads(out)
        elif code == 0 and "--json" in argv:
            [json.loads(line) for line in out.splitlines()]
        if argv[0] == "verify":
            assert code == (4 if damage.findings | damage.knock_on else 0), (scenario.name, code)
        if argv[0] in ("info", "messages") and "--json" not in argv and "--from" not in argv and "--queue" not in argv:
            for file, offset, _ in damage.walk_findings:  # each problem as a one-line warning naming file @ offset
                assert f"{file} @ {offset}" in err, (argv, file, offset)


def test_show_of_the_damaged_record_names_file_and_offset(damaged, capsys):
    """A damage that destroys a record: ``show`` of it is exit 3, one line naming file @ offset. A damage that
    leaves the records readable (a bad CRC, a queue or index file hurt, nothing at all at ``ref``): ``show`` of
    the record it aimed at still answers with a documented code, and a message it shows is the one asked for."""
    _, root, damage = damaged
    readable = ("crc-mismatch", "offset-mismatch", "wrong-segment-size", "missing-segment", "no-segments")
    killed = [f for f in damage.walk_findings if f[2] not in readable]
    ref = 0 if damage.ref is None else damage.ref
    code, out, err = _run(capsys, ["show", str(root), str(ref), "--json"])
    if damage.ref is not None and killed:
        file, offset, _ = min(killed)
        assert code == 3 and err.count("\n") == 1 and f"{file} @ {offset}" in err, err
    else:
        assert code in (0, 1, 3), (code, err)
        _check_one_line_error(["show"], code, out, err)
        if code == 0:
            assert json.loads(out)["physical_offset"] == ref


# -- web --------------------------------------------------------------------------------------------------------


def _urls(ref: int | None, probe: dict) -> list[str]:
    t, k, idx = quote(probe["topic"]), quote(probe["key"]), probe["index"]
    at = ref if ref is not None else 0
    msg_id, _ = _ids_of(ref, probe)
    pages = ["/", "/messages", f"/messages?topic={t}&queue={probe['queue']}", f"/messages?from={at}",
             f"/message/{at}", f"/hex?offset={at}", f"/chain?topic={t}&key={k}", "/slot", f"/slot?file={idx}",
             f"/slot?file={idx}&slot=3", "/teach", f"/resolve?id={msg_id}", "/tour", "/exercises"]
    return pages + ["/api" + u if u != "/" else "/api/" for u in pages[:12]] + ["/api/tour", "/api/tour/1",
                                                                                   "/api/exercises"]


def test_every_web_page_answers(damaged, probe):
    from web.app import create_app

    _, root, damage = damaged
    with Store(root) as store:
        client = create_app(store, {"TESTING": True}).test_client()
        for url in _urls(damage.ref, probe):
            r = client.get(url)
            assert r.status_code in (200, 400, 404), (url, r.status_code, r.data[:500])
            assert b"Traceback" not in r.data, url
        doc = client.get("/api/").get_json()
        shown = {(p["file"], int(p["offset"]), p["code"]) for p in doc["problems"]}  # offsets are strings in JSON
        assert damage.walk_findings <= shown
        page = client.get("/").data.decode()
        for file, _, code in damage.walk_findings:
            assert file in page and code in page


# -- terminal UI ------------------------------------------------------------------------------------------------


def test_every_tui_screen_opens_and_the_problems_screen_shows_the_findings(damaged):
    from textual.widgets import DataTable

    from inspector.tui.app import create_app
    from inspector.tui.fmt import num

    scenario, root, damage = damaged
    stand_in = TUI_STAND_IN.get(scenario.name)
    if stand_in and os.environ.get("RMQ_INSPECT_TUI_STAND_INS"):  # a quicker local run: one scenario per family
        pytest.skip(f"the screens meet this damage as in {stand_in} (RMQ_INSPECT_TUI_STAND_INS is set)")
    # every screen is opened on one scenario per family (the stand-ins' screens meet the damage as their family's
    # does: the same walk findings reach them); every scenario still gets the overview, the background walk's
    # findings, verify's findings on the problems screen and no error notification (2.5 s instead of 6.3 s a
    # scenario: the other screens' styles and workers)
    screens = "6" if stand_in else "12345678"
    store = Store(root)
    app = create_app(store)
    notes: list[tuple[str, str]] = []
    original = app.notify

    def notify(message, *args, **kwargs):
        notes.append((str(message), kwargs.get("severity", "information")))
        return original(message, *args, **kwargs)

    app.notify = notify

    async def script() -> tuple[list[str], list[str], bool]:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            walk_rows = [f"{p.file} @ {num(p.offset)}" for p in app.all_problems()]
            overview = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
            for key in screens:
                await pilot.press(key)
                if key == "5":  # the msgId screen's id field has the focus (digits typed there are an id)
                    await pilot.press("escape")
                await pilot.pause()
            await settle(pilot)  # the views' workers (message list, tour, exercises) finish on the damaged store
            await pilot.press("6")
            await pilot.press("v")  # verify: the cross-file findings too
            await settle(pilot)  # until verify's findings are handled (or its failure said: asserted below)
            table = app.screen.query_one(DataTable)
            rows = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
            return walk_rows, overview, rows, app.is_running

    try:
        walk_rows, overview, rows, running = asyncio.run(script())
    finally:
        store.close()
    assert running
    if damage.walk_findings:  # the overview's problems line counts what the walk found
        assert f"Problems  {len(walk_rows)} found" in overview, overview
    assert not [n for n in notes if n[1] == "error"], notes
    for file, offset, _ in damage.walk_findings:
        assert f"{file} @ {num(offset)}" in walk_rows  # before verify: what the background walk found
    for file, offset, _ in damage.findings:
        assert f"{file} @ {num(offset)}" in rows, (file, offset)


# -- the store path itself: a file, a symlink loop, a missing path, an unreadable directory ----------------------

STORE_COMMANDS = [["info"], ["info", "--json"], ["messages"], ["show", "0"], ["key", "T", "k"], ["chain", "T", "k"],
                  ["hex", "0"], ["verify"], ["verify", "--json"], ["rebuild", "--out", "{out}"], ["tour", "--all"],
                  ["exercises", "--answer-key"], ["tui"], ["web", "--port", "0"], ["groups"], ["group", "g"]]


def test_a_broken_store_path_is_one_line_naming_it(broken_path, capsys, tmp_path):
    _, _, damage = broken_path
    path = str(damage.path)
    for cmd in STORE_COMMANDS:
        argv = [cmd[0], path, *(a.replace("{out}", str(tmp_path / "out")) for a in cmd[1:])]
        code, out, err = _run(capsys, argv)
        assert code == 2, (argv, code, err)
        assert err.count("\n") == 1 and err.startswith("rmq-inspect: ") and path in err, (argv, err)
        assert damage.path_error in err and "Traceback" not in out + err, (argv, err)
    code, _, err = _run(capsys, ["decode-id", "0A14000500002A9F0000000000000000", "--store", path])
    assert code == 2 and err.count("\n") == 1 and path in err
    code, _, err = _run(capsys, [path])  # a bare `rmq-inspect PATH`
    assert code == 2 and err.count("\n") == 1 and path in err


# -- bad arguments: every subcommand, no traceback, documented codes ---------------------------------------------


def _bad_invocations(store: str, tmp: Path) -> list[list[str]]:
    bad_json = tmp / "bad.jsonl"
    bad_json.write_text('{"topic": 5}\nnonsense\n')
    full = tmp / "full"
    full.mkdir(exist_ok=True)
    (full / "x").write_text("x")
    missing = str(tmp / "missing")
    return [
        ["--no-such-flag"], ["no-such-command-or-store"], ["info"], ["info", store, "--segment-size", "zero"],
        ["info", store, "--segment-size", "-4096"], ["info", store, "--index-slots", "0", "--index-items", "7"],
        ["messages", store, "--limit", "ten"], ["messages", store, "--queue", "1"],
        ["messages", store, "--topic", "NoSuchTopic", "--queue", "99"], ["messages", store, "--from", "-7"],
        ["messages", store, "--from", str(1 << 62), "--json"],
        ["show", store, "zzz"], ["show", store, "-5"], ["show", store, str(1 << 40)], ["show", store, "F" * 32],
        ["show", store, "0" * 56], ["key", "T", "k"], ["key", store, "NoTopic", "nokey"],
        ["key", store, "T", "k", "--keyindex", missing], ["chain", store, "", ""], ["chain", store, "T", "k" * 5000],
        ["decode-id", "xyz"], ["decode-id", "G" * 32], ["decode-id", "0" * 32, "--store", missing],
        ["hex", store], ["hex", store, "-1"], ["hex", store, "abc"], ["hex", store, "0", "--length", "-5"],
        ["hex", store, str(1 << 63)], ["hex", store, "0x10", "--length", str(1 << 40)],
        ["write", str(tmp / "w1"), missing], ["write", str(tmp / "w2"), str(bad_json)], ["write", str(full), str(bad_json)],
        ["rebuild", store], ["rebuild", store, "--out", str(full)], ["rebuild", store, "--out", str(tmp / "r"), "--in-place"],
        ["rebuild", store, "--out", str(tmp / "r2"), "--delay-levels", "soon"],
        ["verify", store, "--delay-levels", "1x 2y"], ["verify", missing], ["verify", store, "--cq-file-size", "7"],
        ["tui", missing], ["web", store, "--port", "99999"], ["web", missing],
        ["tour", store, "--step", "9999"], ["tour", store, "--step", "-1"], ["tour", missing],
        ["story", store], ["story", store, "zzz"], ["story", store, "-5"], ["story", store, "T", "k", "extra"],
        ["story", missing, "0"], ["story", store, "0", "--trace-topic", "\x1b[2J"], ["trace", store, "G" * 32],
        ["trace", store, str(1 << 63)], ["trace", missing, "0"], ["preflight", missing], ["preflight", str(full)],
        ["groups", missing], ["group", store], ["group", store, "\x1b]0;x\x07"], ["group", store, "g", "--limit", "0"],
        ["grep", store], ["grep", store, "("], ["grep", store, "x", "--in", "nope"], ["grep", missing, "x"],
        ["grep", store, "x", "--limit", "-1"], ["grep", store, "\x1b[2J", "--topic", "\x1b[2J"],
        ["exercises", store, "--count", "0"], ["exercises", store, "--answers", missing],
        ["exercises", store, "--answers", str(bad_json)], ["templates"], ["templates", "--out", str(full / "x")],
    ]


def test_no_path_through_the_cli_ends_in_a_traceback(capsys, tmp_path):
    store = str(SAMPLE)
    for argv in _bad_invocations(store, tmp_path):
        try:
            code, out, err = _run(capsys, argv)
        except SystemExit as e:  # main() returns codes; argparse's --help would be the only exit
            pytest.fail(f"{argv}: SystemExit({e.code}) escaped main()")
        assert code in (0, 1, 2, 3, 4), (argv, code, err)
        _check_one_line_error(argv, code, out, err)
    code, out, err = _run(capsys, [])  # a bare `rmq-inspect`: the help, exit 2
    assert code == 2 and "usage: rmq-inspect" in out and "Traceback" not in out + err


def test_the_installed_command_gives_the_same_one_line_errors(capsys, tmp_path, damaged_for_subprocess):
    """The real ``rmq-inspect`` executable: same exit codes and stderr as main() in-process, no traceback."""
    import subprocess

    command = need(CONSOLE_SCRIPT)

    cases = [["show", str(SAMPLE), "zzz"], ["hex", str(tmp_path / "missing"), "0"], ["messages", str(SAMPLE), "--limit", "x"],
             ["show", str(damaged_for_subprocess[0]), str(damaged_for_subprocess[1])],
             ["verify", str(damaged_for_subprocess[0]), "--json"]]
    for argv in cases:
        proc = subprocess.run([command, *argv], capture_output=True, text=True, check=False, timeout=120)
        code, _, err = _run(capsys, argv)
        assert proc.returncode == code, (argv, proc.returncode, code, proc.stderr)
        assert "Traceback" not in proc.stdout + proc.stderr, (argv, proc.stderr)
        assert [ln for ln in proc.stderr.splitlines() if ln.startswith("rmq-inspect:")] == \
            [ln for ln in err.splitlines() if ln.startswith("rmq-inspect:")], argv


@pytest.fixture(scope="module")
def damaged_for_subprocess(tmp_path_factory) -> tuple[Path, int]:
    from damage_scenarios import SCENARIOS, make

    scenario = next(s for s in SCENARIOS if s.name == "bad_magic")
    root, damage = make(scenario, tmp_path_factory.mktemp("subprocess"))
    return root, damage.ref


# -- no read permission, even when the tests run as root -----------------------------------------------------------

DROP_DAC = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search",
            "--"]


@pytest.mark.parametrize("name", ["unreadable_segment", "store_path_unreadable"])
def test_no_read_permission_with_the_override_capabilities_dropped(name, tmp_path):
    """Root reads a chmod-000 file anyway; without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH it cannot, so the
    installed command runs under ``setpriv`` with them dropped. (Non-root runs get these cases in-process.)"""
    import subprocess

    from damage_scenarios import SCENARIOS, make, restore_permissions, running_as_root

    if not running_as_root():
        pytest.skip("not root: the in-process scenarios cover unreadable files")
    setpriv, command = need(SETPRIV), need(CONSOLE_SCRIPT)
    scenario = next(s for s in SCENARIOS if s.name == name)
    root, damage = make(scenario, tmp_path)
    try:
        def run(*argv: str) -> subprocess.CompletedProcess:
            return subprocess.run([setpriv, *DROP_DAC[1:], command, *argv], capture_output=True, text=True, check=False,
                                  timeout=120)

        path = str(damage.path)
        if damage.path_error:  # the store directory itself: every command, one line naming it, exit 2
            for argv in (["info", path], ["verify", path, "--json"], ["show", path, "0"], ["hex", path, "0"]):
                proc = run(*argv)
                assert proc.returncode == 2 and proc.stderr.count("\n") == 1, (argv, proc.stderr)
                assert path in proc.stderr and "Permission denied" in proc.stderr
            return
        proc = run("verify", path, "--json")
        assert proc.returncode == 4 and "Traceback" not in proc.stderr, proc.stderr
        found = {(p["file"], p["offset"], p["code"]) for p in json.loads(proc.stdout)["problems"]}
        assert damage.findings | damage.knock_on <= found
        (segment, offset, _), = damage.findings
        proc = run("info", path)
        assert proc.returncode == 0 and f"{segment} @ {offset}" in proc.stderr, proc.stderr
        for argv in (["show", path, str(damage.ref)], ["hex", path, str(damage.ref)]):
            proc = run(*argv)
            assert proc.returncode == 3 and proc.stderr.count("\n") == 1, (argv, proc.stderr)
            assert "Permission denied" in proc.stderr and "Traceback" not in proc.stderr
        proc = run("messages", path, "--json", "--limit", "1000")
        assert proc.returncode == 0 and "Traceback" not in proc.stderr
    finally:
        restore_permissions(tmp_path)
