"""``rmq-inspect preflight STORE``: what the next broker start will do to the store and what it will cut
(the engine's ``preflight``, read-only). Exit 0 when the start loses nothing, 4 when it loses data or refuses."""

from __future__ import annotations

from inspector.cli.output import console, plain, print_json, table, warn_problem
from inspector.engine import fmt_time, preflight


def run(store, as_json: bool) -> int:
    plan = preflight(store)
    if as_json:
        print_json(plan.as_dict())
        return plan.exit_code
    console.print(f"preflight: {plain(plan.verdict)}")
    console.print(f"mode: {plan.mode}: {plain(plan.why)}")
    if plan.dledger is not None:
        console.print(f"DLedger: {plain(plan.dledger)}")
    rec = plan.recovery
    if rec is not None:
        start = f"recovery from {plain(rec.start_segment)}; " if rec.start_segment is not None else ""
        console.print(f"log end: {rec.end_offset:,} ({start}{plain(rec.reason)})")
    d = plan.discarded
    if d.count or d.unreadable:
        topics = ", ".join(f"{plain(t)} {n}" for t, n in sorted(d.topics.items())) or "-"
        rng = f"{d.first_offset:,}..{d.last_offset:,}" if d.count else "-"
        console.print(f"discarded: {d.count:,} readable record(s) at {rng} ({d.bytes:,} bytes past the end"
                      f"{f', {d.unreadable} damaged span(s)' if d.unreadable else ''}); topics: {topics}")
        if d.keys:
            more = f" (first {len(d.keys)} of {d.keys_total:,})" if d.keys_total > len(d.keys) else ""
            console.print(f"discarded keys{more}: {', '.join(plain(k) for k in d.keys)}")
    elif rec is not None:
        console.print("discarded: nothing past the log's end" + (f" ({d.bytes:,} bytes of BLANK end-of-file record, "
                                                                  "no message)" if d.bytes else ""))
    if plan.deleted_segments:
        console.print(f"commitlog segments deleted (past the end): {', '.join(plain(f) for f in plan.deleted_segments)}")
    if plan.queue_cuts:
        t = table("Consume-queue files cut", "file", "action", "units", "first queue offset", "why")
        for c in plan.queue_cuts:
            t.add_row(plain(c.file), c.action, f"{c.units:,}", f"{c.first_queue_offset:,}", plain(c.reason))
        console.print(t)
    if plan.index_cuts:
        t = table("Index files destroyed (IndexService.load: endTimestamp past the checkpoint's indexMsgTimestamp)",
                  "file", "end timestamp", "items", "keys lost", "first lost keys")
        for c in plan.index_cuts:
            shown = ", ".join(plain(k) for k in c.sample)
            if c.lost_keys > len(c.sample):
                shown += f" ... (first {len(c.sample)} of {c.lost_keys:,})"
            t.add_row(plain(c.file), fmt_time(c.end_timestamp), f"{c.items:,}", f"{c.lost_keys:,}", shown or "-")
        console.print(t)
    for note in plan.notes:
        console.print(f"note: {plain(note)}")
    for p in plan.refusals:
        warn_problem(p)
    return plan.exit_code
