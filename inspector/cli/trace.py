"""``rmq-inspect trace``: one message's trace timeline; and the decoded trace records ``show`` prints under a
trace-topic record's body."""

from __future__ import annotations

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json, table, when
from inspector.engine import (
    EXIT_NOT_FOUND,
    Store,
    TraceBody,
    TraceOther,
    trace_of,
    trace_record_pairs,
    trace_timeline_view,
)


def print_trace_body(body: TraceBody) -> None:
    """Each trace record of a trace-topic record's body, its fields by name (store text escaped: plain())."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column(overflow="fold")
    for record in body.records:
        style = "red" if isinstance(record, TraceOther) else "bold cyan"
        grid.add_row(Text(f"#{record.index}", style=style), "")
        for name, value in trace_record_pairs(record):
            grid.add_row(name, plain(value))
    if body.error:
        grid.add_row(Text("error", style="red"), plain(body.error))
    if not body.terminated and body.records:
        grid.add_row(Text("note", style="yellow"), "the body does not end with \\x02 as the client's encoder ends it")
    console.print(Panel(grid, title=Text(f"trace ({plain(body.summary())})"), title_align="left"))


def run_trace(store: Store, ref: str, trace_topic: str | None, as_json: bool) -> int:
    """The timeline of ``ref``'s trace records; exit 1 when the trace topics hold none."""
    timeline = trace_of(store, ref, trace_topic)
    if as_json:
        print_json(trace_timeline_view(timeline))
    elif timeline.entries:  # none: the one line below says so (no empty table)
        how = ("through the index" if timeline.source == "index" else
               f"by a scan of {timeline.messages_read:,} trace message(s): the index found none")
        topics = ", ".join(timeline.topics) or "none in this store"
        t = table(f"trace records of {plain(', '.join(timeline.ids))} ({how}; trace topics: {plain(topics)})",
                  "time", "type", "group", "client or store host", "cost ms", "success", "details", "trace msg @")
        for e in timeline.entries:
            r = e.record
            host = r.client_host or r.store_host or ""
            detail = {"SubBefore": f"request {r.request_id} retry {r.retry_times}",
                      "SubAfter": f"request {r.request_id} context {r.context_code}",
                      "EndTransaction": f"{r.transaction_state} tx {r.transaction_id}"
                                        + (" (from check)" if r.from_transaction_check else ""),
                      "Pub": f"{r.topic} {r.msg_type} offset msgId {r.offset_msg_id}",
                      "Recall": f"{r.topic}"}.get(r.type, "")
            success = "" if r.success is None else "yes" if r.success else "NO"
            t.add_row(when(e.when), r.type, plain(r.group or ""), plain(host),
                      "" if r.cost_time is None else str(r.cost_time), success, plain(detail),
                      str(e.physical_offset))
        console.print(t)
    for note in timeline.notes:
        err_console.print(Text(f"note: {note}", style="yellow"))
    if not timeline.entries:
        if not as_json:  # (with --json the empty records say it, as grep's empty JSON Lines do)
            # the one-line "not found" answer every command gives with exit 1 (the prefix names the tool)
            err_console.print(Text(f"rmq-inspect: no trace record mentions {plain(timeline.ref)}"))
        return EXIT_NOT_FOUND
    return 0
