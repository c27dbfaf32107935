"""``rmq-inspect key`` and ``chain``: key lookups through the index files, and the hash-slot walk itself."""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, esc, plain, print_json, table, warn_problem, when
from inspector.cli.progress import stopped_note, unindexed_scan
from inspector.engine import (
    MAX_TIME,
    NotFound,
    Store,
    chain_view,
    key_hit_view,
    key_missing_reason,
    unindexed_view,
)


def run_key(store: Store, topic: str, key: str, since: int | None, until: int | None, as_json: bool,
            scan: bool = True, budget: float | None = None) -> int:
    """``since``/``until``: only messages stored in [since, until) (epoch ms). The index lookup takes the window
    (it skips index files outside it), a second wider below: an item's time is its file's begin plus whole
    seconds, up to 999 ms before the record's store time. Then each hit's own store time is held to the window,
    exact to the millisecond."""
    with unindexed_scan(store, budget, as_json) as limits:
        hits = store.lookup_key(topic, key, max(0, (since or 0) - 1000), MAX_TIME if until is None else until - 1,
                                scan)
    hits = [h for h in hits if (since is None or h.message.store_timestamp >= since)
            and (until is None or h.message.store_timestamp < until)]
    stopped = stopped_note(limits)  # a partial answer says so: on stderr (--json's stdout stays the document)
    for p in store.index_trust_problems():  # the lookup scanned the log where these files could not be followed
        warn_problem(p)
    coverage = store.index_coverage_note(scan)  # the log no index covers: scanned, or said to be not searched
    if as_json:
        doc = {"topic": topic, "key": key, "messages": [key_hit_view(h) for h in hits]}
        if coverage is not None:
            doc.update(unindexed_view(store.index_coverage()[1], scan))
        print_json(doc)
    elif hits:  # no hit: only the not-found line, no empty table
        t = table(f"Messages indexed under {plain(topic)}#{plain(key)}", "physical offset", "stored", "queue", "queue offset",
                  "matched by", "index file", "item")
        for h in hits:
            m = h.message
            t.add_row(str(m.physical_offset), when(m.store_timestamp), str(m.queue_id), str(m.queue_offset),
                      plain(h.matched_by), plain(h.index_file or "- (scan)"),
                      str(h.item_number) if h.index_file else "-")
        console.print(t)
        for h in hits:
            if h.note is not None:
                err_console.print(f"{h.message.physical_offset}: {esc(h.note)}")
    if coverage is not None and hits and not scan:  # a partial answer says so
        err_console.print(esc(coverage))
    if stopped is not None and hits:
        err_console.print(esc(stopped))
    if not hits:
        # items of the key's hash into the part retention removed: "expired", not a typo's "no message"
        reason = key_missing_reason(store, topic, key)
        if coverage and reason.startswith("no message indexed"):  # the part no index covers: scanned or not
            reason += f" ({coverage})"
        if stopped is not None:
            reason += f"; {stopped}"
        raise NotFound(reason)
    return 0


def run_key_index(keyindex_dir: str, store_path: str | None, topic: str, key: str, since: int | None,
                  until: int | None, as_json: bool) -> int:
    """``key --keyindex DIR``: the same question answered from a table written by ``rmq-inspect spark keyindex``
    (``since``/``until``: stored in [since, until))."""
    from pathlib import Path

    from inspector.spark.keyindex import lookup  # pyarrow (Spark only without it); imports no pyspark itself

    rows = lookup(keyindex_dir, topic, key, since, None if until is None else until - 1)
    if store_path is not None:
        wanted = str(Path(store_path).resolve())
        rows = [r for r in rows if r["store"] == wanted]
    if as_json:
        print_json({"topic": topic, "key": key, "keyindex": str(keyindex_dir), "messages": rows})
    elif rows:  # no hit: only the not-found line, no empty table
        t = table(f"Messages indexed under {plain(topic)}#{plain(key)} (key index {plain(keyindex_dir)})",
                  "store", "physical offset", "stored", "queue", "queue offset", "matched by", "msgId")
        for r in rows:
            t.add_row(plain(r["store"]), str(r["physical_offset"]), when(r["store_timestamp"]), str(r["queue_id"]),
                      str(r["queue_offset"]), plain(r["kind"]), plain(r["msg_id"]))
        console.print(t)
    if not rows:
        raise NotFound(f"no message indexed under {topic}#{key} in {keyindex_dir}")
    return 0


def run_chain(store: Store, topic: str, key: str, as_json: bool) -> int:
    walks = store.chain(topic, key)
    if as_json:
        print_json({"topic": topic, "key": key, "key_string": f"{topic}#{key}",
                    "key_hash": walks[0].key_hash if walks else None, "files": [chain_view(w) for w in walks]})
        return 0 if walks else 1
    if not walks:
        raise NotFound("the store has no index files", "index")
    w0 = walks[0]
    console.print(f"key string [bold]{esc(w0.key)}[/]  hashCode→keyHash {w0.key_hash}  "
                  f"slot {w0.slot} (slot count per file below)", markup=True)
    for w in walks:
        t = table(f"{plain(w.file)}: slot {w.slot} at byte {w.slot_position} holds {w.slot_value}",
                  "step", "item", "stored hash", "phy offset", "time diff (s)", "time", "prev item", "match")
        for n, s in enumerate(w.steps, 1):
            if not s.hash_matches:
                match = Text("other hash", style="dim")
            elif s.key_matches:
                match = Text("key matches", style="green")
            elif s.key_matches is None:
                match = Text("message unreadable", style="red")
            else:
                match = Text("hash collision", style="yellow")
            t.add_row(str(n), str(s.item.number), str(s.item.key_hash), str(s.item.phy_offset), str(s.item.time_diff),
                      when(s.time_ms), str(s.item.prev_index), match)
        console.print(t)
        console.print(f"  stopped: {plain(w.skipped_reason or w.stop_reason)}")
        if w.note:
            console.print(f"  [yellow]note:[/] {esc(w.note)}", markup=True)
    return 0
