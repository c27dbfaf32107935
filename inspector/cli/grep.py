"""``rmq-inspect grep STORE PATTERN``: the messages whose body, keys, tags or properties match, in log order.

Exit codes: 0 hits, 1 no hit, 2 bad input (an invalid regex, an unknown ``--in`` field), 3 no hit while part
of the log could not be read (a segment unreadable, no regular file, or missing: the answer cannot be "none").
"""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json_line, table, warn_problem, when
from inspector.cli.progress import byte_progress
from inspector.engine import (
    EXIT_NOT_FOUND,
    EXIT_STORE_ERROR,
    GrepEnd,
    GrepHit,
    Problem,
    Store,
    compile_pattern,
    grep,
    grep_hit_view,
    parse_fields,
)

DEFAULT_LIMIT = 100
UNREAD = ("unreadable-file", "not-a-segment-file", "missing-segment")  # log a search could not read: "none" is no answer


def run(store: Store, text: str, *, fixed: bool, ignore_case: bool, fields: str | None, topic: str | None,
        tag: str | None, limit: int | None, as_json: bool) -> int:
    """Search ``store``'s log; hits as a table or JSON Lines, Problems and notes on stderr."""
    pattern = compile_pattern(text, fixed=fixed, ignore_case=ignore_case)  # BadInput (exit 2) before any reading
    wanted = parse_fields(fields) if fields is not None else None
    limit = DEFAULT_LIMIT if limit is None else limit
    t = None if as_json else table(f"grep {plain(text)}", "physical offset", "topic", "queue", "queue offset",
                                   "stored", "msgId", "UNIQ_KEY", "field", "context")
    hits = 0
    unreadable = False
    end: GrepEnd | None = None
    with byte_progress("grep") as update:
        kwargs = {} if wanted is None else {"fields": wanted}
        for item in grep(store, pattern, topic=topic, tag=tag, limit=limit, progress=update, **kwargs):
            if isinstance(item, GrepHit):
                hits += 1
                if t is None:
                    print_json_line(grep_hit_view(item))
                else:
                    t.add_row(*_row(item))
            elif isinstance(item, Problem):
                warn_problem(item)
                unreadable = unreadable or item.code in UNREAD
            else:
                end = item
    if t is not None and hits:
        console.print(t)
    if end is not None and end.truncated:
        more = f" (--limit {limit} was reached: a larger --limit shows more)" if end.hits >= limit else ""
        err_console.print(Text(f"note: a partial answer: {end.truncated}{more}", style="yellow"), soft_wrap=True)
    if hits:
        return 0
    if not as_json:
        err_console.print(Text(f"no message matches {plain(text)}"
                               + (f" ({end.records_decoded:,} record(s) decoded, {end.how})" if end else "")
                               + ("; part of the log could not be read (above)" if unreadable else "")))
    return EXIT_STORE_ERROR if unreadable else EXIT_NOT_FOUND


def _row(hit: GrepHit) -> tuple:
    m = hit.message
    context = Text(plain(hit.before))
    context.append(plain(hit.match), style="bold red")
    context.append(plain(hit.after))
    fields = ", ".join(hit.fields) + ("" if hit.field == "body" else f" ({hit.field})")  # e.g. "keys, props (KEYS)"
    return (str(m.physical_offset), plain(m.topic), str(m.queue_id), str(m.queue_offset), when(m.store_timestamp),
            m.msg_id, plain(m.unique_key or ""), plain(fields), context)
