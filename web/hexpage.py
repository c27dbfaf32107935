"""The hex page's own pieces (issue 33): "jump to" read as a person types it (a grouped or 0x offset, or a msgId),
and the data inspector's values at the cursor (static/app.js recomputes the same values as the cursor moves)."""

from __future__ import annotations

import datetime as dt
import re

from inspector.engine import OFFSET, NotFound, Store, parse_integer, resolve_message_id

MSG_ID = re.compile(r"[0-9A-Fa-f]{32}|[0-9A-Fa-f]{56}", re.ASCII)
# an int64 read as epoch ms is shown as a time only inside these years: the broker's timestamps (born, store) are
# ms since 1970, and most other eight bytes would read as a date far outside them
PLAUSIBLE_MS = (946_684_800_000, 4_102_444_800_000)  # 2000-01-01 .. 2100-01-01 UTC


def jump_target(store: Store, text: str) -> int | None:
    """The physical offset "jump to" names: decimal (``14,924``, ``14_924``), ``0x3a4c``, or a msgId (the offset
    msgId's own offset, else the message its UNIQ_KEY reading finds). None when ``text`` is none of these;
    BadInput (the shared wording) for a number out of range; NotFound for a msgId this store does not hold."""
    if parse_integer(text) is not None:
        return OFFSET.parse(text, "offset")
    if not MSG_ID.fullmatch(text.strip()):
        return None
    readings, _, _ = resolve_message_id(text.strip(), store)
    for reading in readings:
        if reading.found and reading.physical_offset is not None:
            return reading.physical_offset
    raise NotFound(f"msgId {text.strip()} is in this store under neither reading (offset msgId, UNIQ_KEY)")


def data_values(data: bytes, index: int) -> list[dict]:
    """The bytes at ``index`` read big-endian (as the store writes them) as int8, int16, int32 and int64: each
    ``{"type", "value", "unsigned", "hex"}`` (value None past the window), and the int64 as a time when plausible."""
    rows = []
    for name, size in (("int8", 1), ("int16", 2), ("int32", 4), ("int64", 8)):
        chunk = data[index:index + size] if 0 <= index else b""
        if len(chunk) < size:
            rows.append({"type": name, "value": None, "unsigned": None, "hex": None})
            continue
        rows.append({"type": name, "value": int.from_bytes(chunk, "big", signed=True),
                     "unsigned": int.from_bytes(chunk, "big"), "hex": "0x" + chunk.hex()})
    stamp = rows[-1]["value"]
    rows.append({"type": "time (int64 ms)", "value": time_text(stamp), "unsigned": None, "hex": None})
    return rows


def time_text(ms: int | None) -> str | None:
    """Epoch ms as ISO 8601 UTC when it is a plausible broker timestamp, else None."""
    if ms is None or not PLAUSIBLE_MS[0] <= ms < PLAUSIBLE_MS[1]:
        return None
    moment = dt.datetime.fromtimestamp(ms // 1000, dt.UTC) + dt.timedelta(milliseconds=ms % 1000)
    return moment.isoformat(timespec="milliseconds")


def field_at(page: dict, offset: int) -> dict | None:
    """The field (or the region, when it has none) holding ``offset`` on a ``data.hex_page``: number, name,
    start, length, value, region (kind, label, start, end)."""
    for r in page["regions"]:
        if r["start"] <= offset < r["end"]:
            region = {"kind": r["kind"], "label": r["label"], "start": r["start"], "end": r["end"]}
            for f in r["fields"]:
                if f["start"] <= offset < f["start"] + f["length"]:
                    return {**f, "region": region}
            return {"number": None, "name": None, "region": region}
    return None
