"""``rmq-inspect decode-id``: both readings of a 32/56-hex message id."""

from __future__ import annotations

import sys

from inspector.cli.output import console, plain, print_json, table, when
from inspector.engine import Store, id_overview


def run(text: str, store: Store | None, as_json: bool) -> int:
    data = id_overview(text, store)
    if as_json:
        print_json(data)
    else:
        o, u = data["offset_msg_id"], data["unique_key"]
        t = table(f"decode-id {plain(data['id'])}", "reading", "fields", "in store")
        t.add_row("offset msgId", f"store host {o['ip']}:{o['port']}, physical offset {o['offset']}", _found(o))
        t.add_row("unique key (UNIQ_KEY)",
                  f"producer {u['ip']}, pid {u['pid']}, class-loader hash {u['class_loader_hash'] & 0xFFFFFFFF:08X}, "
                  f"time ≈ {when(u['approximate_timestamp'])} ({_month(u)}), counter {u['counter']}", _found(u))
        console.print(t)
    if store is not None and not data["found_as"]:
        # exit 1 like every other "not found", with the same one-line error (the readings are still printed)
        sys.stderr.write(f"rmq-inspect: not found: neither reading of {plain(data['id'])} finds a message in this store\n")
        return 1
    return 0


def _found(r: dict) -> str:
    if r["found"] is None:
        return "-"
    if not r["found"]:
        return "no"
    # a UNIQ_KEY found by scanning log no index file covers says so (the engine's note, numbers and file names)
    return f"yes, at {r['physical_offset']}" + (f" ({plain(r['note'])})" if r.get("note") else "")


def _month(u: dict) -> str:
    # id_overview dates a found key by its message's born time (unique_key_time), else from today's month
    return "month of the message's born time" if u["found"] else "month guessed from today's date"
