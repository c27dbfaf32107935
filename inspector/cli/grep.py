"""``rmq-inspect grep STORE PATTERN``: the messages whose body, keys, tags or properties match, in log order.

Exit codes: 0 hits, 1 no hit, 2 bad input (an invalid regex, an unknown ``--in`` field), 3 no hit while part
of the log could not be read (a segment unreadable, no regular file, or missing: the answer cannot be "none").
"""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json_line, warn_problem, when
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
    hit_context,
    parse_fields,
    unknown_topic_note,
)

DEFAULT_LIMIT = 100
TABLE_CONTEXT = 32  # characters of context the listing shows on each side of the match (--json: the engine's 40 bytes)


def run(store: Store, text: str, *, fixed: bool, ignore_case: bool, fields: str | None, topic: str | None,
        tag: str | None, limit: int | None, as_json: bool, since: int | None = None, until: int | None = None) -> int:
    """Search ``store``'s log; hits as a table or JSON Lines, Problems and notes on stderr."""
    pattern = compile_pattern(text, fixed=fixed, ignore_case=ignore_case)  # BadInput (exit 2) before any reading
    wanted = parse_fields(fields) if fields is not None else None
    limit = DEFAULT_LIMIT if limit is None else limit
    hits = 0
    end: GrepEnd | None = None
    with byte_progress("grep") as update:
        kwargs = {} if wanted is None else {"fields": wanted}
        if since is not None or until is not None:
            kwargs.update(since=since, until=until)
        for item in grep(store, pattern, topic=topic, tag=tag, limit=limit, progress=update, **kwargs):
            if isinstance(item, GrepHit):
                hits += 1
                if as_json:
                    print_json_line(grep_hit_view(item))
                else:
                    for line in _lines(item):
                        console.print(line)
            elif isinstance(item, Problem):
                warn_problem(item)
            else:
                end = item
    if end is not None and end.truncated:
        more = f" (--limit {limit} was reached: a larger --limit shows more)" if end.hits >= limit else ""
        err_console.print(Text(f"note: a partial answer: {end.truncated}{more}", style="yellow"), soft_wrap=True)
    if hits:
        return 0
    unreadable = end is not None and end.unread > 0  # "none" is no answer when part of the log went unread
    if not as_json:
        # the one-line "not found" answer every command gives with exit 1 (the prefix names the tool)
        # a mistyped --topic: the line names the topics it may have meant (the log was searched all the same:
        # a topic with no queue can still have records)
        unknown = unknown_topic_note(topic, store.topics()) if topic is not None else None
        err_console.print(Text(f"rmq-inspect: no message matches {plain(text)}"
                               + (f" ({end.records_decoded:,} record(s) decoded, {end.how})" if end else "")
                               + ("; part of the log could not be read (above)" if unreadable else "")
                               + (f"; {plain(unknown)}" if unknown else "")))
    return EXIT_STORE_ERROR if unreadable else EXIT_NOT_FOUND


def _lines(hit: GrepHit) -> tuple[Text, Text]:
    """A hit in two lines, as grep shows a match: where the record is and what names it, then the field and
    the match in its context (store text escaped; the match in bold)."""
    m = hit.message
    head = Text(f"{m.physical_offset}", style="bold cyan")
    head.append(f"  {plain(m.topic)}  queue {m.queue_id}  offset {m.queue_offset}  {when(m.store_timestamp)}  "
                f"msgId {m.msg_id}  UNIQ_KEY {plain(m.unique_key or '-')}")
    before, match, after = hit_context(hit, TABLE_CONTEXT)
    fields = ", ".join(hit.fields) + ("" if hit.field == "body" else f" ({plain(hit.field)})")  # "keys, props (KEYS)"
    context = Text(f"    {fields}: ", style="dim")
    context.append(before)
    context.append(match, style="bold red")
    context.append(after)
    return head, context
