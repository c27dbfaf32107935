"""``rmq-inspect stats STORE [--by KEY]``: the log's records counted by one key, with shares, sizes, rate and a
retention preview. Exit codes: 0, 2 bad input (an unknown --by: argparse), 3 part of the log could not be read
(the figures are printed, and said to be partial)."""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json, table, warn_problem, when
from inspector.cli.progress import byte_progress
from inspector.engine import (
    EXIT_STORE_ERROR,
    SIZE_LABELS,
    Store,
    StoreStats,
    stats_view,
    store_stats,
    window_text,
)

BAR = 30  # characters of the widest bar in the size and rate charts
RETENTION_ROWS = 10  # the first this many retention steps in the table (--json has them all)
SEGMENT_TOPICS = 3  # the heaviest topics named per segment in the table


def run(store: Store, by: str, as_json: bool, *, since: int | None = None, until: int | None = None) -> int:
    """``since``/``until``: count only the records stored in [since, until) (the tables' titles and --json's
    ``window`` say so)."""
    with byte_progress("stats", False if as_json else None) as update:
        stats = store_stats(store, by, progress=update, since=since, until=until)
    for p in stats.problems:
        warn_problem(p)
    if as_json:
        print_json(stats_view(stats))
    else:
        _tables(stats)
    if stats.unread:
        # the one-line answer every command gives with exit 3 (the prefix names the tool)
        err_console.print(Text(f"rmq-inspect: a partial answer: {stats.unread} problem(s) left part of the log "
                               "unread (above); the figures count what could be read"), soft_wrap=True)
        return EXIT_STORE_ERROR
    return 0


def _share(n: int, total: int) -> str:
    return f"{n / total:.1%}" if total else "-"


def _tables(s: StoreStats) -> None:
    total = s.total
    if s.windowed:  # a partial answer says so: first, above every table
        console.print(f"window: records stored {window_text(s.since, s.until)} only (no retention preview)",
                      markup=False, soft_wrap=True)
    t = table(f"Records by {s.by}" + (" (window)" if s.windowed else ""), s.by, "count", "bytes", "body bytes", "share", "compressed", "first stored",
              "last stored")
    for key, c in s.rows.items():
        t.add_row(plain(key), f"{c.messages:,}", f"{c.bytes:,}", f"{c.body_bytes:,}", _share(c.bytes, total.bytes),
                  f"{c.compressed:,}", when(c.first_store_timestamp), when(c.last_store_timestamp))
    t.add_row("total", f"{total.messages:,}", f"{total.bytes:,}", f"{total.body_bytes:,}", "100%" if total.bytes else "-",
              f"{total.compressed:,}", when(total.first_store_timestamp), when(total.last_store_timestamp), style="bold")
    console.print(t)
    ratio = s.compression_ratio
    console.print(f"shares of records: retry {_share(total.retry, total.messages)}, DLQ {_share(total.dlq, total.messages)}, "
                  f"transaction {_share(total.transaction, total.messages)}, delay/timer "
                  f"{_share(total.delay, total.messages)}, compressed {_share(total.compressed, total.messages)}"
                  + (f" (ratio {ratio:.2f}x: {s.compression[0]:,} stored bytes decompress to {s.compression[1]:,})"
                     if ratio else "")
                  + (f"; {s.undecompressable} compressed bod(ies) did not decompress" if s.undecompressable else ""),
                  markup=False, soft_wrap=True)
    if s.timer_units is not None:
        pending = "? (unknown)" if s.timer_pending is None else f"{s.timer_pending:,}"
        console.print(f"timer store (5.x): {s.timer_units:,} timer-log unit(s), {pending} pending (the backlog)",
                      markup=False)
    _chart("Size (TOTALSIZE)", list(zip(SIZE_LABELS, s.sizes, strict=True)))
    unit = "minute" if s.rate_unit == 60_000 else "hour"
    _chart(f"Rate per {unit} (store time)", [(when(ms, "min"), n) for ms, n in s.rate])
    seg = table("Bytes per topic per segment", "segment", "bytes", f"topics (the {SEGMENT_TOPICS} heaviest)")
    for file, topics in s.segment_topics.items():
        named = ", ".join(f"{plain(name)} {n:,}" for name, n in list(topics.items())[:SEGMENT_TOPICS])
        more = len(topics) - SEGMENT_TOPICS
        seg.add_row(plain(file), f"{sum(topics.values()):,}", named + (f" (+{more} more)" if more > 0 else ""))
    console.print(seg)
    if s.retention:
        r = table("Deleting the oldest segments", "delete", "through", "drops records", "drops bytes",
                  "groups left behind (committed < new minimum)")
        for step in s.retention[:RETENTION_ROWS]:
            behind = ", ".join(f"{plain(g)} ({plain(t)}#{q}: committed {c} < {m})"
                               for g, t, q, c, m in step.groups_behind) or "none"
            r.add_row(str(step.segments), plain(step.last_file), f"{step.messages:,}", f"{step.bytes:,}", behind)
        console.print(r)
        if len(s.retention) > RETENTION_ROWS:
            console.print(f"(the first {RETENTION_ROWS} of {len(s.retention)} steps; --json has every one)",
                          markup=False)


def _chart(title: str, rows: list[tuple[str, int]]) -> None:
    """A horizontal bar per row, the widest BAR characters."""
    if not rows:
        return
    top = max(n for _, n in rows) or 1
    width = max(len(label) for label, _ in rows)
    console.print(Text(title, style="bold"))
    for label, n in rows:
        console.print(Text(f"  {label:>{width}}  {n:>9,}  " + "█" * round(BAR * n / top)))
