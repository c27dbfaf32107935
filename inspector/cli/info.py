"""``rmq-inspect info``: what the store holds and what is wrong with it."""

from __future__ import annotations

import sys

from inspector.cli.output import (
    Folded,
    clipped,
    console,
    esc,
    fold_runs,
    plain,
    print_json,
    table,
    warn_problem,
    when,
)
from inspector.commandline import EXIT_STORE_ERROR
from inspector.engine import (
    Store,
    census,
    census_summary,
    checkpoint_future_note,
    open_timer,
    store_overview,
    timer_line,
)

FOLD_RUN = 8  # a run of more alike message-less segments than this shows its first 3 and last 2


def _folded(segments: list[dict]) -> list[dict]:
    """The segment rows with each long run of alike message-less files (20,000 empty files named as segments
    took seconds to draw as a table) folded into one row counting them; --json keeps every one."""
    return [{"folded": r.count, "file_size": r.key} if isinstance(r, Folded) else r
            for r in fold_runs(segments, _empty_file_size, longer_than=FOLD_RUN, head=3, tail=2)]


def _empty_file_size(segment: dict) -> int | None:
    """A message-less segment's size (alike files fold by it); None for a segment with something in it."""
    return segment["file_size"] if segment["messages"] == 0 and segment["blank_position"] is None else None


def run(store: Store, as_json: bool) -> int:
    data = store_overview(store)
    if as_json:
        print_json(data)
        return _offsets_unreadable(store)
    seg_t = table("CommitLog segments", "segment", "start", "size", "valid end", "messages", "BLANK at", "first stored", "last stored")
    for s in _folded(data["segments"]):
        if "folded" in s:
            seg_t.add_row(f"... {s['folded']:,} more like these", "", str(s["file_size"]), "", "0", "", "",
                          "(--json lists each)")
            continue
        blank = "-" if s["blank_position"] is None else f"{s['blank_position']} ({s['blank_size']} B)"
        note = " (preallocated)" if s["preallocated"] else ""
        name = s["file"] if "dledger" in data else s["name"]  # commitlog/ or dledger-n0/data/: say which
        seg_t.add_row(plain(name) + note, str(s["start_offset"]), str(s["file_size"]), str(s["valid_end"]),
                      str(s["messages"]), blank, when(s["first_store_timestamp"]), when(s["last_store_timestamp"]))
    console.print(seg_t)
    console.print(f"physical offsets: min {data['min_physical_offset']}, max {data['max_physical_offset']}; "
                  f"segment size {data['segment_size']}")
    if "dledger" in data:
        _dledger(data["dledger"])
    q_t = table("Topics and queues", "topic", "queue", "min", "max", "count")
    for t in data["topics"]:
        if not t["queues"]:
            q_t.add_row(plain(t["topic"]), "-", "-", "-", "0 (configured, no consume queue)")
        for q in t["queues"]:
            batch = q.get("kind") == "batchconsumequeue"  # 5.x BatchCQ: 46-byte units, one per record
            q_t.add_row(plain(t["topic"]), str(q["queue_id"]) + (" (batch CQ)" if batch else ""), str(q["min_offset"]),
                        str(q["max_offset"]),
                        str(q["message_count"]) + (f" in {q['units']} unit(s)" if batch else ""))
    console.print(q_t)
    if data["topics_source"] != "config/topics.json":
        console.print(f"configured topics from {plain(data['topics_source'])} (where this broker keeps them)")
    offsets = data["offsets"]
    console.print(f"consumer lag: {plain(offsets['label'])} ({plain(offsets['reason'])})")
    if data["consumer_groups"]:
        c_t = table(f"Consumer offsets ({plain(offsets['source'])})", "group", "topic", "queue", "offset", "max", "lag")
        for c in data["consumer_groups"]:
            c_t.add_row(plain(c["group"]), plain(c["topic"]), str(c["queue_id"]), str(c["consumer_offset"]),
                        "-" if c["max_offset"] is None else str(c["max_offset"]), "-" if c["lag"] is None else str(c["lag"]))
        console.print(c_t)
    i_t = table("Index files", "file", "slots x items", "begin", "end", "begin phy", "end phy", "used slots", "indexCount")
    for i in data["index_files"]:
        i_t.add_row(plain(i["name"]), f"{i['slot_count']} x {i['item_count']}", when(i["begin_timestamp"]), when(i["end_timestamp"]),
                    str(i["begin_phy_offset"]), str(i["end_phy_offset"]), str(i["hash_slot_count"]),
                    f"{i['index_count']} ({i['items_written']} items)")
    console.print(i_t)
    cp = data["checkpoint"]
    if cp:
        console.print(f"checkpoint: physicMsgTimestamp {when(cp['physic_msg_timestamp'])}, "
                      f"logicsMsgTimestamp {when(cp['logics_msg_timestamp'])}, indexMsgTimestamp {when(cp['index_msg_timestamp'])}")
        future = checkpoint_future_note(store)  # the table only: info --json stays the same document
        if future is not None:
            console.print(f"[yellow]{esc(future)}[/]", markup=True)
    console.print("last shutdown: " + ("clean (no abort file)" if data["clean_shutdown"] else "[yellow]broker running or crashed (abort file present)[/]"),
                  markup=True)
    r = data["recovery"]
    console.print(f"recovery ({r['mode']}) would end the log at {r['end_offset']}: {plain(r['reason'])}")
    if "tail_not_checked" in data:  # a copied store's zero tail written out: the overview did not read all of it
        console.print(plain(data["tail_not_checked"]))
    # the census in one line, for the table only: `census --json` has it as a document (and info --json of a store
    # stays the same document when its commitlog is moved elsewhere by a broker.conf)
    member = store.dledger_choice.read if store.dledger_choice is not None else None
    found = census(store.root, store.broker_config, member)
    console.print(f"census: {plain(census_summary(found))}" + ("" if not found.problems else " (`rmq-inspect census` lists them)"))
    timer = timer_line(store)  # 5.x: the table only, like the census line (info --json stays the same document)
    if timer is not None:
        console.print(f"timer store: {plain(timer)} (`rmq-inspect timer` lists them)")
    s_t = table("Broker settings (where each came from: flag, broker.conf, inferred from the files, or default)",
                "setting", "value", "source", "detail")
    for row in data["settings"]:
        s_t.add_row(plain(row["name"]), plain(clipped(row["value"])), plain(row["source"]), plain(clipped(row["detail"])))
    console.print(s_t)
    for db in data["config_databases"]:
        tables = ", ".join(f"{name} {count}" for name, count in db["tables"].items()) or "empty"
        console.print(f"config database {esc(db['rel'])}/: " + (f"[red]{esc(db['error'])}[/]" if db["error"] else esc(tables)),
                      markup=True)
    console.print(f"problems: {len(data['problems'])}")
    timer_problems = open_timer(store).problems() if timer is not None else []
    # dict.fromkeys: a timer-log entry that is no file is among the store's problems and the timer store's, once
    for p in dict.fromkeys(store.problems() + [p for s in store.scans() for p in s.problems]
                           + list(store.delay_table().problems) + timer_problems):
        warn_problem(p)
    return _offsets_unreadable(store)


def _offsets_unreadable(store: Store) -> int:
    """Exit 3 with one line naming the database when the consumer offsets' source cannot be read at all (the
    rest of the store was still shown)."""
    error = store.consumer_offsets().error
    if error is None:
        return 0
    sys.stderr.write(f"rmq-inspect: {plain(error)}\n")
    return EXIT_STORE_ERROR


def _dledger(d: dict) -> None:
    """A DLedger store: where its entries begin, its term files and the term timeline (leader changes)."""
    console.print(f"DLedger ({plain(d['member'])}): {d['entries']} entries (Raft index {d['first_index']}..{d['last_index']})"
                  f" in {d['data_files']} data file(s) from pos {d['divided_commitlog_offset']} (dividedCommitlogOffset);"
                  " record offsets are pos + 48")
    for name in ("checkpoint", "currterm"):
        values, error = d[name], d[f"{name}_error"]
        shown = ", ".join(f"{k}={v}" for k, v in values.items()) if values else (error or "absent")
        console.print(f"  {name}: {plain(shown)}")
    t = table("Term timeline (leader changes)", "term", "first index", "first pos", "first record offset",
              "first stored")
    for row in d["terms"]:
        t.add_row(str(row["term"]), str(row["first_index"]), str(row["first_pos"]), str(row["first_record_offset"]),
                  when(row["first_store_timestamp"]) if row["first_store_timestamp"] is not None else "-")
    console.print(t)
    if d["terms_more"]:
        console.print(f"  ... and {d['terms_more']:,} more term changes, not listed (the first {len(d['terms']):,} are)")
