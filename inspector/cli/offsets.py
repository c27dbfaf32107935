"""``rmq-inspect offsets plan``: a consumer group's offset reset planned as the broker would do it, per queue, and
written as a new offsets file (``--out``), never into the store."""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json, table, warn_problem, when
from inspector.engine import Store, offset_plan_view, plan_offsets, write_offsets_file

_MODE = {"at": "to the first message stored at or after {at} ({when})",
         "nearest": "to the message stored nearest {at} ({when}; 4.9.8's getOffsetInQueueByTime)", "to-end": "to the end (each queue's max)",
         "to-offset": "to queue offset {offset}"}


def run_plan(store: Store, args) -> int:
    """The plan's table (or --json), then the new file when --out is given (its path checked before the store
    was read: main)."""
    plan = plan_offsets(store, args.group, at=args.at, offset=args.to_offset, topic=args.topic,
                        queue_id=args.queue, force=not args.backward_only, nearest=args.nearest)
    data = offset_plan_view(plan)
    written = None
    if args.out:
        written = write_offsets_file(store, plan, args.out, force=args.force)
        data["out"] = {"path": written.path, "form": written.form, "queues_changed": written.changed,
                       "note": written.note}
    else:
        data["out"] = None
    if args.json:
        print_json(data)
        return 0
    how = _MODE["nearest" if plan.nearest else plan.mode].format(at=plan.at, when=when(plan.at) if plan.at else "", offset=plan.offset)
    console.print(Text(f"offset reset of consumer group {plain(plan.group)} {how}", style="bold"))
    console.print(f"offsets: {plain(plan.source)} ({plain(plan.reason)}); "
                  + ("every queue set to the picked offset (5.x resetOffsetInner)" if plan.force else
                     "a queue moves only backwards (Broker2Client.resetOffset, isForce=false)"))
    t = table("per queue (replay: messages consumed again; skip: messages never consumed)", "topic", "queue",
              "committed", "min", "max", "picked", "picked stored", "new", "replay", "skip", "note")
    for q in data["queues"]:
        stored = "-" if q["picked_store_timestamp"] is None else when(q["picked_store_timestamp"])
        t.add_row(plain(q["topic"]), str(q["queue_id"]), str(q["committed_offset"]), str(q["min_offset"]),
                  str(q["max_offset"]), str(q["picked_offset"]), stored, str(q["new_offset"]), f"{q['replay']:,}",
                  f"{q['skip']:,}", plain(q["note"] or ""))
    console.print(t)
    console.print(f"total: {plan.replay:,} message(s) replayed, {plan.skip:,} skipped")
    for note in plan.notes:
        err_console.print(Text(f"note: {plain(note)}", style="yellow"))
    for problem in plan.problems:
        warn_problem(problem)
    if written is None:
        console.print("nothing written (a plan only): --out FILE writes the new offsets file")
        return 0
    console.print(f"wrote {plain(written.path)} ({written.form}, {written.changed} queue(s) changed)")
    if written.note:
        err_console.print(Text(f"note: {plain(written.note)}", style="yellow"))
    return 0
