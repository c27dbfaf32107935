"""``rmq-inspect decode-id``: both readings of a 32/56-hex message id."""

from __future__ import annotations

import datetime as dt
import time

from inspector.cli.output import console, print_json, table, when
from inspector.engine import Store, decode_id
from inspector.engine.views import id_reading_view
from parsers.msgid import uniq_key_nearly_time


def id_data(text: str, store: Store | None) -> dict:
    readings = decode_id(text, store)
    offset_r, uniq_r = (id_reading_view(r) for r in readings)
    tz = dt.datetime.now().astimezone().tzinfo
    uniq_r["approximate_timestamp"] = uniq_key_nearly_time(uniq_r["time_since_month_start"], int(time.time() * 1000), tz)
    data = {
        "id": text.strip().upper(),
        "kind": "offset_msg_id",
        "ip": offset_r["ip"],
        "port": offset_r["port"],
        "offset": offset_r["offset"],
        "offset_msg_id": offset_r,
        "unique_key": uniq_r,
    }
    if store is not None:
        found = [r for r in (offset_r, uniq_r) if r["found"]]
        data["found_as"] = [r["kind"] for r in found]
        data["physical_offset"] = found[0]["physical_offset"] if found else None
    return data


def run(text: str, store: Store | None, as_json: bool) -> int:
    data = id_data(text, store)
    if as_json:
        print_json(data)
    else:
        o, u = data["offset_msg_id"], data["unique_key"]
        t = table(f"decode-id {data['id']}", "reading", "fields", "in store")
        t.add_row("offset msgId", f"store host {o['ip']}:{o['port']}, physical offset {o['offset']}", _found(o))
        t.add_row("unique key (UNIQ_KEY)",
                  f"producer {u['ip']}, pid {u['pid']}, class-loader hash {u['class_loader_hash'] & 0xFFFFFFFF:08X}, "
                  f"time ≈ {when(u['approximate_timestamp'])}, counter {u['counter']}", _found(u))
        console.print(t)
    if store is not None and not data["found_as"]:
        return 1
    return 0


def _found(r: dict) -> str:
    if r["found"] is None:
        return "-"
    return f"yes, at {r['physical_offset']}" if r["found"] else "no"
