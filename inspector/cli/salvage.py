"""``rmq-inspect salvage STORE --plan | --out DIR [--from-replica B]``: a damaged store's readable records
copied into a new store a broker starts on and keeps whole (the engine's ``salvage_plan`` / ``salvage``; the store
is only read). Exit 0 when nothing is lost (nothing damaged, or every damaged span recovered), 4 when data is lost
(a span no copy holds, a config file no backup holds), 2 bad arguments (``--out`` not empty), 3 a store cannot be
read."""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json, table
from inspector.cli.progress import byte_progress
from inspector.engine import salvage, salvage_plan, verify


def run(store, replica, args) -> int:
    with byte_progress("verifying", None if not args.json else False) as update:
        report = verify(store, progress=lambda phase, done, total: update(done, total))
    if args.out:
        with byte_progress("writing", None if not args.json else False) as update:
            result = salvage(store, args.out, replica, report=report, progress=update)
        plan, data = result.plan, result.as_dict()
    else:
        plan = salvage_plan(store, replica, report=report)
        data = plan.as_dict(args.limit)
    if args.json:
        print_json(data)
    else:
        _tables(data, args.limit)
        if args.out:
            console.print(f"salvaged store written to {plain(data['out'])}: {data['messages']:,} record(s) "
                          f"dispatched into {data['cq_units']:,} consume-queue unit(s) and {data['index_items']:,} "
                          f"index item(s); the broker's recovery ends its log at {data['recovered_end']:,}. "
                          "Check it: rmq-inspect verify " + plain(data["out"]))
    listed = [s for s in data["spans"] if s["lost_records_total"] > s["lost_records_listed"]]
    if listed:
        err_console.print(Text(f"rmq-inspect: a partial answer: lost records listed up to --limit {args.limit} a "
                               f"span ({len(listed)} span(s) hold more; --json with a higher --limit lists them)"),
                          soft_wrap=True)
    return plan.exit_code


def _tables(v: dict, limit: int) -> None:
    console.print(f"salvage: {plain(v['verdict'])}", soft_wrap=True)
    if v["replica"]:
        console.print(f"replica: {plain(v['replica'])}", soft_wrap=True)
    t = table("Commitlog spans", "state", "file", "start", "end", "bytes", "records", "what salvage does")
    for s in v["spans"]:
        what = s["action"] + (f" ({plain(s['reason'])})" if s["reason"] else "")
        t.add_row(s["state"], plain(s["file"]), f"{s['start']:,}", f"{s['end']:,}", f"{s['bytes']:,}",
                  f"{s['records']:,}", what)
    console.print(t)
    lost = [(s, r) for s in v["spans"] if s["state"] == "lost" for r in s["lost_records"]]
    if lost:
        t = table("Records lost (known by their queue units; a placeholder keeps each one's queue offset)",
                  "offset", "size", "topic", "queue", "queue offset", "keys")
        for _, r in lost:
            t.add_row(f"{r['physical_offset']:,}", f"{r['size']:,}", plain(r["topic"]), str(r["queue_id"]),
                      f"{r['queue_offset']:,}", plain(", ".join(r["keys"])) or "-")
        console.print(t)
    unplaced = sum(s["without_placeholder"] for s in v["spans"])
    if unplaced:
        console.print(f"{unplaced} lost record(s) got no placeholder (too small, or no room for a filler beside "
                      "them): their queues' later offsets move down by one each", soft_wrap=True)
    if v["repaired_records"]:
        console.print("PHYSICALOFFSET rewritten to the record's place: "
                      + ", ".join(f"{o:,}" for o in v["repaired_records"]), soft_wrap=True)
    if v["lmq_units_lost"]:
        console.print(f"{v['lmq_units_lost']} %LMQ% unit(s) pointed into lost spans: those LMQ queues lose them",
                      soft_wrap=True)
    t = table("Other files", "file", "action", "why")
    for f in v["files"]:
        t.add_row(plain(f["file"]), f["action"], plain(f["reason"]) or "-")
    console.print(t)
    for note in v["notes"]:
        console.print(f"note: {plain(note)}", soft_wrap=True)
