"""Request arguments: parsed strictly, a bad one is a 400 naming it (never a 500 further down)."""

from __future__ import annotations

import re

from flask import abort, current_app, g, request

from inspector.engine import (
    INDEX_SLOT,
    LENGTH,
    LIMIT,
    OFFSET,
    QUEUE_ID,
    QUEUE_OFFSET,
    STORE_TIME,
    ArgumentKind,
    BadInput,
    check_window,
    integer_kind,
    parse_integer,
)
from web.deadline import Deadline

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MAX_TEXT = 4096  # no argument we take is longer (topics are <= 32767 bytes in theory; in practice < 256)


def parse_kind(text: str, name: str, kind: ArgumentKind) -> int:
    """``text`` read as ``kind`` (the engine's argument vocabulary, shared with the CLI and the TUI); 400 with the
    allowed range otherwise. Decimal only: every URL and JSON field of the viewer spells numbers in decimal."""
    try:
        return kind.parse(text, name, decimal_only=True)
    except BadInput as e:
        abort(400, description=str(e))


def parse_int(text: str, name: str, low: int = INT64_MIN, high: int = INT64_MAX) -> int:
    """An integer in [low, high] for an argument with no kind of its own; 400 otherwise."""
    return parse_kind(text, name, integer_kind(low, high))


def kind_arg(name: str, kind: ArgumentKind, default: int | None = None, *, required: bool = False) -> int | None:
    """Query argument ``name`` read as ``kind``; an empty value counts as absent."""
    text = request.args.get(name, "")
    if not text.strip():
        if required:
            abort(400, description=f"{name} is required")
        return default
    return parse_kind(text, name, kind)


def int_arg(name: str, default: int | None = None, *, low: int = INT64_MIN, high: int = INT64_MAX,
            required: bool = False) -> int | None:
    """Query argument ``name`` as an int in [low, high]; an empty value counts as absent."""
    return kind_arg(name, integer_kind(low, high), default, required=required)


def text_arg(name: str, *, required: bool = False) -> str | None:
    """Query argument ``name`` as text (bounded length, no control characters other than tab)."""
    text = request.args.get(name)
    if text is None or text == "":
        if required:
            abort(400, description=f"{name} is required")
        return None
    if len(text) > MAX_TEXT:
        abort(400, description=f"{name} is longer than {MAX_TEXT} characters")
    if any(ord(c) < 32 and c != "\t" for c in text):
        abort(400, description=f"{name} contains control characters")
    return text


def int_list_arg(name: str, default: tuple[int, ...], *, max_items: int, low: int, high: int) -> list[int]:
    """Comma- or space-separated integers."""
    text = request.args.get(name, "")
    if not text.strip():
        return list(default)
    parts = [p for p in re.split(r"[\s,]+", text.strip()) if p]
    if len(parts) > max_items:
        abort(400, description=f"{name} takes at most {max_items} values, not {len(parts)}")
    return [parse_int(p, name, low, high) for p in parts]


# -- the arguments of each page (the HTML page and its /api/ twin take the same) ---------------------------------

BODY_FORMATS = ("text", "json", "hex")
INDEX_NAME_LENGTH = 17  # yyyyMMddHHmmssSSS


def get_store():
    """The store opened at start (``create_app``); requests never name a path."""
    return current_app.extensions["rmq_store"]


def get_limits():
    return current_app.extensions["rmq_limits"]


def get_deadline() -> Deadline:
    """This request's time budget (``Limits.request_seconds``), started when the request is first asked for it."""
    if "rmq_deadline" not in g:
        g.rmq_deadline = Deadline(get_limits().request_seconds)
    return g.rmq_deadline


def window_args() -> dict:
    """``since`` / ``until``: a store-time window [since, until), read as the CLI's --since/--until (ISO 8601 with
    or without a zone, epoch ms, -15m); 400 with the message for a bad one or a since after until."""
    since, until = kind_arg("since", STORE_TIME), kind_arg("until", STORE_TIME)
    try:
        check_window(since, until)
    except BadInput as e:
        abort(400, description=str(e).replace("--since", "since").replace("--until", "until"))
    return {"since": since, "until": until}


def list_args() -> dict:
    limits = get_limits()
    topic = text_arg("topic")
    queue_id = kind_arg("queue", QUEUE_ID)
    if queue_id is not None and topic is None:
        abort(400, description="queue needs a topic")
    return {"topic": topic, "queue_id": queue_id,
            "start": kind_arg("from", OFFSET if queue_id is None else QUEUE_OFFSET),
            "limit": kind_arg("limit", LIMIT.at_most(limits.max_page_size), limits.page_size), **window_args()}


def group_args() -> tuple[str | None, int]:
    """``/groups?name=G&limit=N``: a group's name (None: the list of groups) and how many pending messages."""
    limits = get_limits()
    return text_arg("name"), kind_arg("limit", LIMIT.at_most(limits.max_page_size), 20)


def stats_by_arg() -> str:
    """``/stats?by=KEY``: one of the engine's BY (default topic); anything else is a 400 naming them."""
    from inspector.engine import BY

    by = request.args.get("by", "topic")
    if by not in BY:
        abort(400, description=f"by must be one of {', '.join(BY)}")
    return by


def offset_value(text: str) -> int:
    return parse_kind(text, "offset", OFFSET)


def hex_spelled(text: str | None) -> int | None:
    """The number ``text`` spells when it spells one only as the CLI reads it (``0x3a4c``: the shared
    ``parse_integer``), not in the viewer's decimal; None otherwise. A page given an offset so spelled redirects
    to its decimal URL, as the hex page's "jump to" does (the API stays decimal, and its 400 says so)."""
    if text is None or parse_integer(text, decimal_only=True) is not None:
        return None
    return parse_integer(text)


def body_format_arg() -> str:
    fmt = request.args.get("body", "text")
    if fmt not in BODY_FORMATS:
        abort(400, description=f"body must be one of {', '.join(BODY_FORMATS)}")
    return fmt


def hex_args() -> tuple[int, int]:
    limits = get_limits()
    offset = kind_arg("offset", OFFSET, get_store().min_offset)
    # the page's own bounds (a row is 16 bytes; a page at most max_hex_length) narrow the shared length range
    length = kind_arg("length", LENGTH.at_least(16).at_most(limits.max_hex_length), limits.hex_length)
    return offset, length


ADDRESS_STYLES = ("dec", "hex")


def hex_page_args() -> tuple[str | None, int, str]:
    """The hex page's ``offset`` as typed (``web.hexpage.jump_target`` reads it), ``length`` and ``addr`` (the
    address column in ``dec`` or ``hex``)."""
    limits = get_limits()
    length = kind_arg("length", LENGTH.at_least(16).at_most(limits.max_hex_length), limits.hex_length)
    addr = request.args.get("addr", "dec") or "dec"
    if addr not in ADDRESS_STYLES:
        abort(400, description=f"addr must be one of {', '.join(ADDRESS_STYLES)}")
    text = text_arg("offset")
    return (text.strip() or None) if text else None, length, addr


def chain_args() -> tuple[str | None, str | None]:
    topic, key = text_arg("topic"), text_arg("key")
    if (topic is None) != (key is None):
        abort(400, description="a chain needs both topic and key")
    return topic, key


def slot_args() -> tuple[str | None, int | None]:
    """``file`` is an index file NAME, checked against the store's own list later; never a path."""
    name = text_arg("file")
    slot = kind_arg("slot", INDEX_SLOT)
    if name is not None and not (len(name) == INDEX_NAME_LENGTH and name.isascii() and name.isdigit()):
        abort(400, description="file must be an index file name (17 digits, e.g. 20250919090000196), not a path")
    if name is None and slot is not None:
        abort(400, description="slot needs file")
    return name, slot


def timer_args() -> int | None:
    """``slot``: a timer wheel slot number, or None for the wheel's list."""
    from inspector.engine import TIMER_SLOT

    return kind_arg("slot", TIMER_SLOT)


def teach_args() -> tuple[list[int], int, int, int | None]:
    from inspector.engine import DEFAULT_HASHES, DEFAULT_SLOTS

    hashes = int_list_arg("hashes", DEFAULT_HASHES, max_items=32, low=-(1 << 31), high=(1 << 31) - 1)
    slots = int_arg("slots", DEFAULT_SLOTS, low=1, high=64)
    step = int_arg("step", 0, low=0, high=len(hashes))
    lookup_hash = int_arg("lookup", low=-(1 << 31), high=(1 << 31) - 1)
    return hashes, slots, step, lookup_hash


def search_args() -> dict:
    """The search page's arguments (``rmq-inspect grep``'s options): q, fixed=1, i=1, in, topic, tag, limit."""
    limits = get_limits()
    return {"text": text_arg("q"), "fixed": request.args.get("fixed") == "1",
            "ignore_case": request.args.get("i") == "1", "fields": text_arg("in"), "topic": text_arg("topic"),
            "tag": text_arg("tag"), "limit": int_arg("limit", limits.page_size, low=1, high=limits.max_page_size),
            **window_args()}
