"""``rmq-inspect groups`` (one line per consumer group) and ``rmq-inspect group`` (one group's queues, then the
messages after its committed offsets)."""

from __future__ import annotations

from inspector.cli.output import console, err_console, plain, print_json, table, warn_problem, when
from inspector.engine import Store, group_of, group_view, groups_of, groups_view


def _count(count: dict | None) -> str:
    return "-" if count is None else f"{count['messages']:,} in {count['queues']} queue(s)"


def run_groups(store: Store, as_json: bool) -> int:
    """Every group: its topics, queues, total lag, retry and DLQ counts."""
    offsets = store.consumer_offsets()
    data = groups_view(groups_of(store), offsets.source, offsets.reason)
    if as_json:
        print_json(data)
        return 0
    t = table(f"consumer groups (lag from {plain(data['offsets_source'])}: {plain(data['reason'])})",
              "group", "topics", "queues", "lag", "retry", "DLQ", "config", "offsets in")
    for g in data["groups"]:
        lag = f"{g['lag']:,}" + (f" ({g['corrected_queues']} corrected)" if g["corrected_queues"] else "")
        t.add_row(plain(g["group"]), plain(", ".join(g["topics"])) or "-", str(g["queues"]), lag,
                  _count(g["retry"]), _count(g["dlq"]), "yes" if g["configured"] else "no",
                  plain(", ".join(g["offset_sources"])) or "-")
    console.print(t)
    if not data["groups"]:
        console.print("no consumer group: no offsets and no subscription-group config in this store")
    return 0


def _side(m: dict | None) -> str:
    """A message either side of a committed offset, in a cell: queue offset @ physical offset, stored time."""
    if m is None:
        return "-"
    if "problem" in m:
        return f"{m['queue_offset']}: unreadable: {plain(m['problem'])}"
    return f"{m['queue_offset']} @ {m['physical_offset']}, {when(m['store_timestamp'])}"


def run_group(store: Store, group: str, limit: int, as_json: bool) -> int:
    """One group's view; NotFound (exit 1, naming the groups there are) for an unknown group."""
    view = group_of(store, group, limit)
    data = group_view(view)
    if as_json:
        print_json(data)
        return 0
    from rich.text import Text  # here: ``--json`` of 16,000 queues must not pay for Rich's import (issue 30)

    console.print(Text(f"consumer group {plain(data['group'])}", style="bold"))
    console.print(f"offsets: {plain(data['offsets_source'])} ({plain(data['reason'])})")
    config = "found" if data["config"] is not None else "none (a group known from its offsets only)"
    console.print(f"subscription-group config in {plain(data['config_source'])}: {config}")
    console.print(f"subscriptions (topics its offsets name): {plain(', '.join(data['topics'])) or '-'}")
    console.print(f"retry: {_count(data['retry'])}; DLQ: {_count(data['dlq'])}; total lag {data['lag']:,}")
    t = table("queues (a message either side of the committed offset: queue offset @ physical offset, stored; "
              "`show OFFSET` for the rest)", "topic", "queue", "committed offset", "min", "max", "lag", "last consumed",
              "first unconsumed", "note")
    for q in data["queues"]:
        note = [q["note"]] if q["note"] else []
        note += [f"{o['source']} has {o['offset']}" for o in q["other_sources"]]
        t.add_row(plain(q["topic"]), str(q["queue_id"]), str(q["committed_offset"]),
                  "-" if q["min_offset"] is None else str(q["min_offset"]),
                  "-" if q["max_offset"] is None else str(q["max_offset"]),
                  "-" if q["lag"] is None else f"{q['lag']:,}", _side(q["last_consumed"]),
                  _side(q["first_unconsumed"]), plain("; ".join(note)))
    console.print(t)
    p = table(f"pending: messages after the committed offsets ({len(data['pending'])} of {data['pending_total']:,})",
              "topic", "queue", "queue offset", "physical offset", "stored", "tags", "keys", "body")
    for m in data["pending"]:
        if "body_preview" not in m:
            p.add_row(plain(m["topic"]), str(m["queue_id"]), str(m["queue_offset"]), "-", "-", "-", "-",
                      Text(f"unreadable: {plain(m['problem'])}", style="red"))
            continue
        p.add_row(plain(m["topic"]), str(m["queue_id"]), str(m["queue_offset"]), str(m["physical_offset"]),
                  when(m["store_timestamp"]), plain(m["tags"] or ""), plain(" ".join(m["keys"])),
                  plain(m["body_preview"]))
    if data["pending"]:
        console.print(p)
    else:
        console.print("pending: none (every queue is consumed up to its max offset)")
    if data["more_pending"]:
        err_console.print(Text(f"note: --limit {data['pending_limit']}: {data['more_pending']:,} more pending "
                               "message(s) not listed", style="yellow"))
    for problem in view.problems:
        warn_problem(problem)
    return 0
