"""``rmq-inspect story``: every record of the store that belongs to one message, in store-time order, each with
its role, then each consumer group's progress over the queues involved (the engine's ``story_of``)."""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json, table, when
from inspector.engine import Budget, Store, Story, story_of, story_view


def run_story(store: Store, ref: str, key: str | None, scan: bool, trace_topic: str | None, as_json: bool,
              budget_seconds: float | None = None) -> int:
    """The story of ``ref`` (or of the first message under topic ``ref`` and ``key``); exit 0 when found (the
    engine raises NotFound, BadInput or StoreError for exit 1, 2 and 3). ``budget_seconds``: the engine stops
    reading then and the story told so far is the answer (its notes say what was not read)."""
    budget = Budget(budget_seconds) if budget_seconds else None
    story = story_of(store, ref, key, scan=scan, trace_topic=trace_topic, budget=budget)
    if as_json:
        print_json(story_view(story))
    else:
        print_story(story)
    for line in story.searched:
        err_console.print(Text(f"searched: {plain(line)}"))
    for note in story.notes:
        err_console.print(Text(f"note: {plain(note)}", style="yellow"))
    return 0


def print_story(story: Story) -> None:
    """The records table and the groups table (every store text through ``plain``: terminal_text)."""
    key = f" (UNIQ_KEY {plain(story.unique_key)})" if story.unique_key else " (no UNIQ_KEY)"
    t = table(f"story of {plain(story.ref)}{key}: {len(story.records)} record(s)",
              "time", "role", "@ offset", "topic", "queue", "queue offset", "facts (and how found, unless by index)")
    for r in story.records:
        facts = "; ".join(f"{name} {value}" for name, value in r.facts)
        if r.expired:
            facts = f"{r.expired}" + (f"; {facts}" if facts else "")
        if not r.found_by.startswith("index (") and r.role not in ("trace", "lmq"):  # the file: in --json
            facts += f"{'; ' if facts else ''}({r.found_by})"
        role = Text(r.role + (" (expired)" if r.expired else ""), style="red" if r.expired else "bold")
        where = "" if r.physical_offset is None else str(r.physical_offset)
        if r.inner_index is not None and r.role == "inner":
            where += f" #{r.inner_index}"
        t.add_row("" if r.time is None else when(r.time), role, where, plain(r.topic),
                  "" if r.queue_id is None else str(r.queue_id),
                  "" if r.queue_offset is None else str(r.queue_offset), plain(facts))
    console.print(t)
    source = plain(story.offsets_source or "none readable")
    g = table(f"consumer groups (offsets from {source})", "group", "topic", "queue", "message at",
              "committed", "consumed", "client", "cost ms", "success")
    for p in story.groups:
        consumed = "-" if p.consumed is None else "yes" if p.consumed else "no"
        g.add_row(plain(p.group), plain(p.topic or "(trace records only)"),
                  "" if p.queue_id is None else str(p.queue_id),
                  "" if p.queue_offset is None else str(p.queue_offset),
                  "" if p.committed is None else str(p.committed), Text(consumed, style="green" if p.consumed else ""),
                  plain(p.client or ""), "" if p.cost_ms is None else str(p.cost_ms),
                  "" if p.success is None else "yes" if p.success else "NO")
    if story.groups:
        console.print(g)
    else:
        console.print(Text("no consumer group has an offset on a queue of these records"))
