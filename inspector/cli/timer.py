"""``rmq-inspect timer``: the 5.x timer store. Units of the timer log (default), the wheel's non-empty slots
(``--wheel``), one slot's chain (``--slot N``), or the summary with the pending-timer histogram (``--summary``)."""

from __future__ import annotations

import sys

from rich.text import Text

from inspector.cli.output import (
    console,
    err_console,
    plain,
    print_json,
    print_json_chunk,
    print_json_line,
    table,
    warn_problem,
    when,
)
from inspector.commandline import EXIT_STORE_ERROR
from inspector.engine import (
    NotFound,
    Store,
    open_timer,
    timer_chain_view,
    timer_slot_views,
    timer_summary,
    timer_unit_chunks,
    timer_unit_view,
)

DEFAULT_LIMIT = 100


def run(store: Store, args) -> int:
    timer = open_timer(store)
    if not timer.present:
        raise NotFound("no timer store here (no timerlog/, timerwheel or config/timercheck): a 4.x store, or a "
                       "broker run with timerWheelEnable=false")
    problems = timer.problems()
    for p in problems:
        warn_problem(p)
    if args.slot is not None:
        code = _slot(timer, args.slot, args.json)
    elif args.summary:
        code = _summary(timer, args.json)
    else:
        limit = DEFAULT_LIMIT if args.limit is None else args.limit
        code = (_wheel if args.wheel else _units)(timer, args.start or 0, limit, args.json)
    # what could be read is shown; a timer file that could not be read at all is exit 3, as elsewhere
    return EXIT_STORE_ERROR if any(p.code == "unreadable-file" for p in problems) else code


def _partial(shown: int, total: int, limit: int, what: str, where: str, next_start: int | None) -> None:
    """Say on stderr when --limit cut the listing, and the --from that continues it, as ``messages`` does
    (stdout stays clean JSON Lines)."""
    if shown < total and next_start is not None:
        err_console.print(f"note: stopped at --limit {limit}: {shown} of {total} {what} shown, more follow ({where} "
                          f"{next_start}: --from {next_start} continues)", markup=False, soft_wrap=True)


def _units(timer, start: int, limit: int, as_json: bool) -> int:
    units = timer.units()
    first = int(units.offset.searchsorted(start))  # --from: a timer-log offset; the first unit at or after it
    total = len(units)
    shown = max(0, min(limit, total - first))
    after = int(units.offset[first + shown]) if first + shown < total else None
    if as_json:
        sys.stdout.flush()
        for chunk in timer_unit_chunks(timer, first, limit):
            print_json_chunk(chunk)  # stdout, or the rows to --format / -o
        sys.stdout.flush()
        _partial(shown, total - first, limit, "unit(s)", "timer-log offset", after)
        return 0
    t = table("Timer log units", "offset", "magic", "written", "delay ms", "delivery", "pending", "topic",
              "commitlog offset", "size", "prev pos", "record")
    for row in range(first, first + shown):
        v = timer_unit_view(timer, row)
        rec = v["record"]
        record = _record_text(rec) if rec else Text(plain(v["record_problem"]), style="red")
        t.add_row(str(v["offset"]), plain("|".join(v["magic_names"])), when(v["write_time"]), str(v["delay_time"]),
                  when(v["delivery_time"]), {True: "yes", False: "no", None: "?"}[v["pending"]],
                  plain(v["topic"] if v["topic"] is not None else f"hash {v['topic_hash']}"),
                  str(v["commitlog_offset"]), str(v["size"]), str(v["prev_pos"]), record)
    console.print(t)
    pending = timer.pending_mask()
    console.print(f"{shown} of {total} unit(s)" + (f", {int(pending.sum())} pending" if pending is not None else "")
                  + f"; timer log ends at {units.end}")
    _partial(shown, total - first, limit, "unit(s)", "timer-log offset", after)
    return 0


def _record_text(rec: dict) -> str:
    """A linked record in a table cell: its unique key (else msgId), TIMER_OUT_MS, the key a DELETE cancels
    (store text: escaped for the terminal)."""
    text = f"{rec['unique_key'] or rec['msg_id']} TIMER_OUT_MS={rec['timer_out_ms']}"
    if rec["del_unique_key"]:
        text += f" cancels {rec['del_unique_key']}"
    return plain(text)


def _wheel(timer, start: int, limit: int, as_json: bool) -> int:
    numbers = list(timer.slot_numbers())
    first = sum(1 for n in numbers if n < start)  # --from: a slot number
    rows = list(timer_slot_views(timer, first, limit))
    if as_json:
        for row in rows:
            print_json_line(row)
    else:
        t = table("Timer wheel: non-empty slots", "slot", "time", "date", "first pos", "last pos", "num", "magic",
                  "pending")
        for r in rows:
            t.add_row(str(r["slot"]), str(r["time"]), when(r["time"]), str(r["first_pos"]), str(r["last_pos"]),
                      str(r["num"]), str(r["magic"]), {True: "yes", False: "no", None: "?"}[r["pending"]])
        console.print(t)
        wheel = timer.wheel
        size = "no timerwheel file" if wheel is None else (
            "timerwheel is 0 bytes: not yet sized by a broker" if wheel.size == 0 else f"timerwheel {wheel.size:,} bytes")
        console.print(f"{len(rows)} of {len(numbers) - first} non-empty slot(s); {size}")
    after = numbers[first + len(rows)] if first + len(rows) < len(numbers) else None
    _partial(len(rows), len(numbers) - first, limit, "non-empty slot(s)", "slot", after)
    return 0


def _slot(timer, slot: int, as_json: bool) -> int:
    if timer.slot(slot) is None:
        raise NotFound(f"slot {slot} of the timer wheel is empty", "timerwheel", slot * 32)
    view = timer_chain_view(timer, timer.walk(slot))
    if as_json:
        print_json(view)
        return 0
    console.print(f"slot [bold]{slot}[/] at byte {slot * 32} of timerwheel: time {view['time']} ({view['date']}), "
                  f"num {view['num']}", markup=True)
    t = table(f"Chain of slot {slot}: last_pos -> prev_pos ...", "hop", "offset", "magic", "delivery", "in slot",
              "topic", "commitlog offset", "record")
    for hop in view["chain"]:
        u = hop["unit"]
        if u is None:
            t.add_row(str(hop["hop"]), str(hop["offset"]), Text("no unit here", style="red"), "", "", "", "", "")
            continue
        rec = u["record"]
        record = _record_text(rec) if rec else Text(plain(u["record_problem"]), style="red")
        t.add_row(str(hop["hop"]), str(hop["offset"]), plain("|".join(u["magic_names"])), when(u["delivery_time"]),
                  "yes" if hop["in_slot"] else Text("no", style="yellow"), plain(u["topic"] or f"hash {u['topic_hash']}"),
                  str(u["commitlog_offset"]), record)
    console.print(t)
    verdict = {True: "[green]matches[/]", False: "[red]does not match[/]", None: "[yellow]not known[/]"}[
        view["num_matches"]]
    console.print(f"{view['hops']} hop(s), counting +1 per unit and -1 per DELETE unit: {view['counted']}; num "
                  f"{view['num']} {verdict}" + (" (walk truncated)" if view["truncated"] else ""), markup=True)
    return 0


def _summary(timer, as_json: bool) -> int:
    summary = timer_summary(timer)
    if as_json:
        print_json(summary)
        return 0
    check = summary["timercheck"]
    console.print(f"timer log: {len(summary['timerlog_files'])} file(s), {summary['units']} unit(s), ends at "
                  f"{summary['timerlog_end']}; pending {summary['pending'] if summary['pending'] is not None else '?'}")
    s = summary["settings"]
    console.print(f"timerPrecisionMs {s['timerPrecisionMs']} ({s['timerPrecisionMs_source']}), mappedFileSizeTimerLog "
                  f"{s['mappedFileSizeTimerLog']} ({s['mappedFileSizeTimerLog_source']})")
    if check is not None:
        console.print(f"timercheck: lastReadTimeMs {check['last_read_time_ms']} ({when(check['last_read_time_ms'])}), "
                      f"lastTimerLogFlushPos {check['last_timer_log_flush_pos']}, lastTimerQueueOffset "
                      f"{check['last_timer_queue_offset']}, masterTimerQueueOffset {check['master_timer_queue_offset']}")
    if summary["timermetrics"]:
        console.print("timermetrics: " + ", ".join(f"{plain(k)} {plain(v)}" for k, v in sorted(summary["timermetrics"].items())))
    t = table("Pending timers by delivery time", "from", "to", "count", "")
    top = max((b["count"] for b in summary["histogram"]), default=0)
    for b in summary["histogram"]:
        t.add_row(when(b["from_ms"]), when(b["to_ms"]), str(b["count"]), "#" * (40 * b["count"] // top if top else 0))
    console.print(t)
    return 0
