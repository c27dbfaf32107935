"""The hex page's own pieces (issue 33): "jump to" read as a person types it (a grouped or 0x offset, or a msgId),
and the field at the cursor (the data inspector's values: the engine's ``byte_readings``; static/app.js recomputes
both as the cursor moves)."""

from __future__ import annotations

import re

from inspector.engine import OFFSET, NotFound, Store, parse_integer, resolve_message_id

MSG_ID = re.compile(r"[0-9A-Fa-f]{32}|[0-9A-Fa-f]{56}", re.ASCII)


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
