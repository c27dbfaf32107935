"""``rmq-inspect write``, ``rebuild`` and ``verify``: make stores, rebuild their queues and indexes, check them."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from inspector.cli.output import console, esc, plain, print_json, table, warn_problem
from inspector.cli.progress import byte_progress
from inspector.commandline import EXIT_OK, EXIT_PROBLEMS
from inspector.engine import (
    BadInput,
    Geometry,
    Store,
    parse_delay_levels,
    problem_view,
    read_broker_config,
    read_json,
    store_geometry,
)

# each command loads the engine module it runs when it runs (the face is lazy): verify never waits for the
# writer, its codecs and the rebuild machinery (~20 ms), nor write/rebuild for verify's kernels


def _geometry(args, base: Geometry) -> Geometry:
    values = {k: getattr(args, k, None) for k in ("segment_size", "cq_file_size", "index_slots", "index_items",
                                                   "delay_levels")}
    geometry = Geometry(**{**base.__dict__, **{k: v for k, v in values.items() if v is not None}})
    try:  # checked here, once: a bad level would otherwise fail deep inside the dispatch of every record
        parse_delay_levels(geometry.delay_levels)
    except ValueError as e:
        raise BadInput(f"--delay-levels: {e}") from None
    return geometry


def run_write(args) -> int:
    from inspector.engine import write_store

    offsets = {}
    if args.consumer_offsets:
        try:  # the guarded read (a regular file of a config file's size) and the config files' JSON limits
            raw = read_json(args.consumer_offsets, "an offsets file")
            for key, queues in raw.items():
                topic, _, group = key.partition("@")
                offsets[(topic, group)] = {_number(q, "queue id", 31): _number(o, "offset", 63)
                                           for q, o in queues.items()}
        except (OSError, ValueError, AttributeError) as e:
            raise BadInput(f"--consumer-offsets: expected {{\"topic@group\": {{\"0\": 5}}}}: {e}") from None
    base = Geometry()
    timer_options = {"timer_now": args.timer_now}
    config = read_broker_config(args.broker_config)
    if config is not None:  # the sizes and delay table of the broker the new store is for
        base = Geometry(**config.geometry_values())
        timer_options.update(timer_precision_ms=config.timerPrecisionMs, timer_file_size=config.mappedFileSizeTimerLog)
    geometry = _geometry(args, base)
    attributes = {topic: {"queue.type": "BatchCQ"} for topic in args.batch_topic}
    results = write_store(Path(args.out), lambda: _open_input(args.input), geometry, store_host=args.store_host,
                          producer_ip=args.producer_ip, consumer_offsets=offsets, source=_input_name(args.input),
                          topic_attributes=attributes, timer_options=timer_options,
                          dledger=_dledger_options(args), keep_offsets=args.keep_offsets)
    summary = {"out": str(args.out), "messages": len(results),
               "records": [{"physical_offset": r.physical_offset, "topic": r.topic, "queue_id": r.queue_id,
                            "queue_offset": r.queue_offset, "msg_id": r.msg_id, "unique_key": r.unique_key}
                           for r in results]}
    if args.json:
        print_json(summary)
    else:
        console.print(f"wrote {len(results)} message(s) to {plain(args.out)}")
    return 0


def _dledger_options(args):
    """``--dledger`` and its companions; None for a plain store (the companions alone are refused)."""
    from inspector.engine import DLedgerOptions, parse_integer

    if not args.dledger:
        if args.pre_dledger or args.dledger_term or args.dledger_index_file_size or args.dledger_self_id != "n0":
            raise BadInput("--pre-dledger, --dledger-term, --dledger-self-id and --dledger-index-file-size go with "
                           "--dledger")
        return None
    terms = {}
    for text in args.dledger_term:
        index, _, term = text.partition(":")
        values = parse_integer(index), parse_integer(term)
        if None in values or values[0] < 0 or values[1] < 1:
            raise BadInput(f"--dledger-term: INDEX:TERM, a Raft index >= 0 and a term >= 1, not {text[:40]!r}")
        terms[values[0]] = values[1]
    extra = {"index_file_size": args.dledger_index_file_size} if args.dledger_index_file_size else {}
    return DLedgerOptions(self_id=args.dledger_self_id, pre_dledger=args.pre_dledger, terms=terms or {0: 1},
                          **extra)


def _number(value: object, what: str, bits: int) -> int:
    """A queue id (the broker's offsetTable key: a Java int) or an offset (a Java long) of --consumer-offsets,
    >= 0; a quoted one too (JSON keys are strings). ValueError naming the range otherwise."""
    text = str(value) if isinstance(value, int | str) and not isinstance(value, bool) else ""
    number = int(text) if text.isascii() and text.strip().lstrip("+-").isdigit() and len(text) <= 21 else -1
    if not 0 <= number < 1 << bits:
        raise ValueError(f"{text[:30] or repr(value)[:30]!r} is no {what} in [0, 2^{bits}-1]")
    return number


def _input_name(path: str | None) -> str:
    return "<stdin>" if path in (None, "-") else path


def _open_input(path: str | None):
    """The JSON Lines input (stdin for None or ``-``), a line at a time with a bound on each line; a path through
    the guarded open (a FIFO, a device or a directory is refused). write_store opens it once the target is
    checked."""
    from inspector.engine import message_lines

    return message_lines(sys.stdin.buffer if path in (None, "-") else path)


def run_rebuild(store: Store, args) -> int:
    from inspector.engine import rebuild, rebuild_in_place

    geometry = _geometry(args, store_geometry(store))
    with byte_progress("rebuilding", None if not args.json else False) as update:
        if args.in_place:
            result, backup = rebuild_in_place(store, geometry, progress=update)
        else:
            if not args.out:
                raise BadInput("give --out DIR (a new directory), or --in-place to replace the store's own files")
            result, backup = rebuild(store, args.out, geometry, progress=update), None
    data = result.as_dict()
    data["backup"] = None if backup is None else str(backup)
    if args.json:
        print_json(data)
        return 0
    r = data["recovery"]
    console.print(f"recovery ({r['mode']}): the log ends at {r['end_offset']}: {plain(r['reason'])}")
    console.print(f"dispatched {data['messages']} record(s): {data['cq_units']} consume-queue unit(s) in "
                  f"{len(data['cq_files'])} file(s), {data['index_items']} index item(s) in {len(data['index_files'])} "
                  f"file(s) -> {plain(data['out'])}")
    if backup is not None:
        console.print(f"replaced files kept in {plain(backup)}")
    for p in result.skipped:
        warn_problem(p)
    return 0


TABLE_ROWS_PER_CODE = 20  # verify's table: rows shown per kind of finding


def run_verify(store: Store, args) -> int:
    from inspector.engine import verify

    with byte_progress("verifying", None if not args.json else False) as update:
        report = verify(store, _geometry(args, store_geometry(store)),
                        progress=lambda phase, done, total: update(done, total))
    errors = report.errors
    # info findings (retention's leftovers: expired units and items) are neither errors nor warnings
    infos = sum(p.severity == "info" for p in report.problems)
    warnings = len(report.problems) - len(errors) - infos
    if args.json:
        print_json({"ok": not errors, "messages": report.messages, "cq_units": report.cq_units,
                    "index_items": report.index_items, "errors": len(errors),
                    "warnings": warnings, "info": infos,
                    "problems": [problem_view(p) for p in report.problems],
                    **({"dledger_recovery": report.dledger_recovery} if report.dledger_recovery else {})})
    else:
        # a table of thousands of rows (an index of the wrong geometry: one finding per item) helps nobody and
        # takes rich seconds to draw: the first few of each kind, and how many more (--json has every one)
        from rich.text import Text

        t = table("Problems", "file", "offset", "code", "reason")
        shown: Counter[str] = Counter()
        for p in report.problems:
            shown[p.code] += 1
            if shown[p.code] <= TABLE_ROWS_PER_CODE:
                style = {"error": "red", "info": "cyan"}.get(p.severity, "yellow")
                t.add_row(plain(p.file), str(p.offset), Text(plain(p.code), style=style), plain(p.reason))
        if report.problems:
            console.print(t)
        for code, n in sorted(shown.items()):
            if n > TABLE_ROWS_PER_CODE:
                console.print(f"[yellow]... and {n - TABLE_ROWS_PER_CODE:,} more {esc(code)} finding(s) not shown "
                              "(`--json` lists every one)[/]", markup=True)
        if report.dledger_recovery:
            console.print(f"recovery preview: {plain(report.dledger_recovery)}")
        console.print(f"checked {report.messages} message(s), {report.cq_units} consume-queue unit(s), "
                      f"{report.index_items} index item(s): "
                      + ("[green]no problems[/]" if len(report.problems) == infos else
                         f"{len(errors)} error(s), {warnings} warning(s)")
                      + (f", {infos} info finding(s)" if infos else ""), markup=True)
    return EXIT_PROBLEMS if errors else EXIT_OK
