"""What each page shows, as plain dicts built from engine results (shared by the HTML pages and the JSON API).

No Flask here and no byte parsing: every value comes from an engine method or an engine view
(``inspector.engine.present.views``), so the field names are the CLI's ``--json`` names. Integers stay integers;
``web.api`` turns the 64-bit offsets into strings on the way to the browser.
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass

from inspector.engine import (
    MESSAGE_FIELDS,
    SEARCH_FIELDS,
    BadInput,
    ChainWalk,
    GrepHit,
    IndexFileReader,
    Message,
    NotFound,
    Problem,
    Store,
    StoreError,
    body_line,
    body_preview,
    build_steps,
    busiest_slots,
    census,
    census_view,
    chain_view,
    committed_offsets,
    compile_pattern,
    grep,
    grep_end_view,
    grep_hit_view,
    group_of,
    group_view,
    groups_of,
    groups_view,
    hex_segment,
    hex_window,
    holds_offset,
    id_overview,
    index_file_view,
    inner_batch_of,
    inner_messages,
    is_inner_batch,
    key_hash_steps,
    key_missing_reason,
    log_window,
    lookup,
    message_view,
    next_message_offset,
    page_before,
    parse_fields,
    preflight,
    problem_view,
    queue_view,
    queue_window,
    region_view,
    segment_size,
    slot_occupancy,
    survey_of,
    trace_topic_of,
    unindexed_view,
    walk_slot,
)
from web.deadline import NO_DEADLINE, Deadline


@dataclass(frozen=True)
class Limits:
    """Caps that keep every response bounded, whatever the store holds."""

    page_size: int = 50  # messages per list page (default)
    max_page_size: int = 500
    list_body_bytes: int = 256  # body bytes per message in a list (API base64, page preview)
    body_bytes: int = 64 * 1024  # body bytes of one message shown or sent
    hex_length: int = 768  # default hex page
    max_hex_length: int = 8192
    max_chain_items: int = 200  # items drawn / sent per index file
    chain_walk_items: int = 10_000  # items walked per index file (a hot key's chain can hold millions)
    max_problems: int = 200
    max_rows: int = 1000  # rows of each overview table (topics, consumer groups, segments, index files)
    scan_entries: int = 20_000  # commitlog entries one list page may walk to fill itself
    list_bytes: int = 2_000_000  # record bytes (bodies as capped) one list page may hold: properties can be huge
    request_seconds: float | None = 5.0  # time budget of one request's own loops (web.deadline)
    busy_seconds: float = 30.0  # how long a request waits for a free worker before a 503
    workers: int = 8  # requests served at once (more wait for a free worker)
    walk_wait_seconds: float = 0.3  # how long the overview waits for the store's background walk to end


# -- overview ---------------------------------------------------------------------------------------------------


def overview(store: Store, limits: Limits, deadline: Deadline = NO_DEADLINE) -> dict:
    """``store_overview``, walked once per store in the background (``survey_of``) and shared by every request:
    what the CLI's ``info --json`` gives, same field names, the problem list capped (``problem_count`` is the
    full number). ``walk`` says how far the walk is: until it is done (waited for up to ``walk_wait_seconds``,
    within ``deadline``) the fields it computes are empty or None (``walk.note``: "walking segment 3/8, 41%")."""
    survey = survey_of(store)
    # one wait per request, shared by the walk and the census: each waiting its own 0.3 s made a fresh
    # viewer's first page of a 16,000-queue store take 0.63 s
    until = time.monotonic() + _wait_seconds(limits, deadline)
    survey.wait(_wait_seconds(limits, deadline))
    state = survey.state()
    complete = survey.result()
    d = dict(complete) if complete is not None else _walking(store)  # a copy: the shared result stays whole
    d["walk"] = state.as_dict()
    d["problem_count"] = len(d["problems"]) if complete is not None else None
    d["problems"] = d["problems"][: limits.max_problems]
    for name in ("segments", "topics", "consumer_groups", "index_files"):  # ``<name>_total``: the full number
        d[f"{name}_total"] = len(d[name])
        d[name] = d[name][: limits.max_rows]
    d["census"] = census_of(store, limits, max(0.0, until - time.monotonic()))
    return d


def overview_done(d: dict) -> bool:
    """Whether an ``overview`` is final: its walk and its census are done (until then it changes by itself)."""
    return bool(d["walk"]["done"]) and d["census"] is not None


_NEXT_START: weakref.WeakKeyDictionary[Store, str] = weakref.WeakKeyDictionary()


def next_start(store: Store) -> str:
    """The engine's preflight banner (what the next broker start does), worked out once per store: it walks up to
    the log's last three segments, which no page should pay for twice."""
    with _CENSUS_LOCK:
        known = _NEXT_START.get(store)
    if known is None:
        try:
            known = preflight(store).banner
        except StoreError as e:
            known = f"next start: not known ({e})"
        with _CENSUS_LOCK:
            _NEXT_START[store] = known
    return known


class _Census:
    """The census of a store root, counted once in a background thread from the viewer's start (16,000 queue
    folders take a fifth of a second: no request should pay for it)."""

    def __init__(self, store: Store) -> None:
        self.view: dict | None = None
        self.thread = threading.Thread(target=self._count, args=(store.root, store.broker_config),
                                       name="rmq-census", daemon=True)
        self.thread.start()

    def _count(self, root, broker_config) -> None:
        try:
            self.view = census_view(census(root, broker_config))
        except (OSError, BadInput) as e:  # the root vanished: say so where the census would be
            self.view = {"summary": f"cannot count the files: {e}", "kinds": [], "problems": [], "unlisted": 0,
                         "errors": 0}


_CENSUS: weakref.WeakKeyDictionary[Store, _Census] = weakref.WeakKeyDictionary()
_CENSUS_LOCK = threading.Lock()


def start_census(store: Store) -> None:
    with _CENSUS_LOCK:
        if store not in _CENSUS:
            _CENSUS[store] = _Census(store)


def census_of(store: Store, limits: Limits, wait: float = 0.0) -> dict | None:
    """``census_view`` of the store root (``rmq-inspect census --json``), its entries capped at ``max_problems``
    (``problems_total`` the full number); None while it is being counted (waited for up to ``wait`` s)."""
    start_census(store)
    counting = _CENSUS[store]
    counting.thread.join(wait)
    if counting.view is None:
        return None
    capped = dict(counting.view)
    capped["problems_total"] = len(capped["problems"]) + capped["unlisted"]
    capped["problems"] = capped["problems"][: limits.max_problems]
    return capped


def _wait_seconds(limits: Limits, deadline: Deadline) -> float:
    if deadline.at is None:
        return limits.walk_wait_seconds
    return max(0.0, min(limits.walk_wait_seconds, deadline.at - time.monotonic()))


def _walking(store: Store) -> dict:
    """The overview's fields while the walk runs: what needs no walk, the rest empty or None."""
    return {"store": str(store.root), "segment_size": segment_size(store), "segments": [],
            "min_physical_offset": store.min_offset, "max_physical_offset": None, "topics": [], "index_files": [],
            "checkpoint": None, "abort_file": store.abort_exists, "lock_file": store.lock_exists,
            "clean_shutdown": store.clean_shutdown, "shutdown": None, "recovery": None, "consumer_groups": [],
            "offsets": None, "config_databases": [], "problems": [], "settings": [], "truncated": None}


# -- messages ----------------------------------------------------------------------------------------------------


LIST_PREVIEW_WIDTH = 80  # characters of a list row's body preview


# What the HTML list (messages.html) shows of a row and of an inner message's row; its derivations are the
# declared shape's (MESSAGE_FIELDS), so a slim row's values are the full row's
_SHOWN = ("physical_offset", "topic", "queue_id", "queue_offset", "store_timestamp", "tags", "keys", "total_size",
          "body_length")
_SHOWN_FIELDS = tuple(f for f in MESSAGE_FIELDS if f.name in _SHOWN)


def _list_row(msg: Message, limits: Limits, trace_topic: str | None = None, slim: bool = False) -> dict:
    # trace_topic: the broker config's msgTraceTopicName, so a list row decodes what the message page decodes.
    # slim: the HTML list's row, only the fields it shows (a full view of 50 rows, its body in base64 and its
    # trace decoded, was most of the page's time); /api/messages keeps every field
    if slim:
        view = {f.name: f.derive(msg) for f in _SHOWN_FIELDS}
        inner = inner_batch_of(msg)
        if inner is not None:
            view["inner_batch"] = inner
    else:
        view = message_view(msg, body_limit=limits.list_body_bytes, trace_topic=trace_topic)
    view["body_preview"] = body_line(msg, LIST_PREVIEW_WIDTH)
    return view


def _row_bytes(msg: Message, limits: Limits) -> int:
    """What a list row may weigh: the record without its body, plus the body bytes a row shows."""
    return msg.total_size - len(msg.body) + min(len(msg.body), limits.list_body_bytes)


def _full(rows: list, used: int, cost: int, limits: Limits) -> str | None:
    if rows and used + cost > limits.list_bytes:
        return f"stopped at the page size cap ({limits.list_bytes} bytes of records) after {len(rows)} messages"
    return None


def groups_data(store: Store, limits: Limits) -> dict:
    """Every consumer group (``groups --json``), at most ``max_rows`` of them (``shown_of`` says how many)."""
    offsets = store.consumer_offsets()
    d = groups_view(groups_of(store), offsets.source, offsets.reason)
    d["shown_of"] = len(d["groups"])
    d["groups"] = d["groups"][:limits.max_rows]
    return d


def stats_data(store: Store, by: str, limits: Limits, since: int | None = None, until: int | None = None) -> dict:
    """``stats --json`` (``stats_view``), at most ``max_rows`` rows (``rows_total`` says how many there are);
    ``since``/``until``: only the records stored in [since, until) (``window`` says so)."""
    from inspector.engine import stats_view, store_stats

    d = stats_view(store_stats(store, by, since=since, until=until))
    d["rows_total"] = len(d["rows"])
    d["rows"] = d["rows"][:limits.max_rows]
    return d


def group_data(store: Store, name: str, limit: int, limits: Limits) -> dict:
    """One group (``group --json``; NotFound naming the groups there are), at most ``max_rows`` queue rows
    (``queues_total`` says how many there are)."""
    d = group_view(group_of(store, name, limit))
    d["queues_total"] = len(d["queues"])
    d["queues"] = d["queues"][:limits.max_rows]
    return d


def group_marks(store: Store, page: dict) -> dict | None:
    """The marker lines of a queue page (``message_list`` in queue order): each consumer group's committed offset
    (from the source the broker uses), before its first pending row on this page (``before``: queue offset ->
    label), or after the page's last row when that is the queue's last and the groups consumed it (``after``).
    None for a page in commitlog order. Not part of ``/api/messages``: the page draws them, the API is unchanged."""
    if page.get("order") != "queue":
        return None
    shown = {m["cq_queue_offset"] for m in page["messages"]}
    last = max(shown, default=None)
    before: dict[int, list[str]] = {}
    after: list[str] = []
    for group, offset in committed_offsets(store, page["topic"], page["queue_id"]):
        if offset in shown:
            before.setdefault(offset, []).append(group)
        elif last is not None and offset == last + 1 == page["queue"]["max_offset"]:
            after.append(group)
    end = page["queue"]["max_offset"]
    return {"before": {o: f"▶ committed {o}: {', '.join(g)} (pending from here)" for o, g in before.items()},
            "after": f"◀ committed {end}, all consumed: {', '.join(after)}" if after else None}


PAGE_BACK = 20  # records walked back per row of a page (previous page, newest page)


def message_list(store: Store, topic: str | None, queue_id: int | None, start: int | None, limit: int,
                 limits: Limits, deadline: Deadline = NO_DEADLINE, since: int | None = None,
                 until: int | None = None, slim: bool = False) -> dict:
    """One page of messages: queue order with topic+queue (``from`` = queue offset), else commitlog order
    (``from`` = physical offset; with a topic, only that topic's messages, walking at most ``scan_entries``).
    Both stop early at ``deadline``: ``scan_stopped`` says so and ``next_from`` continues from there.
    ``since``/``until``: only messages stored in [since, until), where to start and stop found by binary search
    (``queue_window``, ``log_window``), as ``messages --since/--until``. ``slim``: rows of only the fields the HTML
    list shows (``_SHOWN``); the API's rows have every field."""
    rows: list[dict] = []
    problems: list[dict] = []
    trace_topic = trace_topic_of(store)
    result = {"topic": topic, "queue_id": queue_id, "from": start, "limit": limit, "messages": rows,
              "problems": problems, "next_from": None, "prev_from": None, "since": since, "until": until}
    windowed = since is not None or until is not None
    if topic is not None and queue_id is not None:
        info = store.queue(topic, queue_id).info()  # NotFound for an unknown queue
        first = max(start or 0, info.min_offset)
        stop = info.max_offset
        if windowed:
            lo, stop = queue_window(store, topic, queue_id, since, until)
            first = max(first, lo)
        result.update(order="queue", queue=queue_view(info), **{"from": first})
        last = None
        walked = used = 0
        for unit, item in store.queue_messages(topic, queue_id, first):
            if unit is not None and unit.queue_offset >= stop:  # (a unit that could not be read: None, a Problem)
                break
            walked += 1
            if walked % 64 == 0 and deadline.expired() and unit is not None:
                result["next_from"] = unit.queue_offset
                result["scan_stopped"] = deadline.note(f"walking {walked - 1} queue units")
                break
            if isinstance(item, Problem):
                problems.append(problem_view(item))
                if len(problems) >= limits.max_problems:
                    break
                continue
            cost = _row_bytes(item, limits)
            full = _full(rows, used, cost, limits)
            if len(rows) >= limit or full:
                result["next_from"] = unit.queue_offset
                if full:
                    result["scan_stopped"] = full
                break
            used += cost
            rows.append(_list_row(item, limits, trace_topic, slim) | {"cq_queue_offset": unit.queue_offset})
            last = unit.queue_offset
        if result["next_from"] is None and last is not None and last + 1 < stop:
            result["next_from"] = last + 1
        if first > info.min_offset:
            result["prev_from"] = max(info.min_offset, first - limit)
        return result
    result["order"] = "commitlog"
    window = log_window(store, since, until) if windowed else None
    if window is not None and window.start is not None:
        start = window.start if start is None else max(start, window.start)
    inside = record_holding(store, start) if start is not None else None
    if inside is not None:  # a from inside a record or a BLANK: said, and the list starts at the record after it
        start = inside["end"]
        result["from_note"] = inside["note"]
    result["from"] = store.min_offset if start is None else start
    # a page back and the newest page, in commitlog order: each walks back at most PAGE_BACK records a row (a
    # record read whole to know its topic costs ~0.2 ms: 20,000 of them for an absent topic took 3.9 s on a
    # 173k-record store); a rare topic's page back then starts where that stopped (fewer rows, none skipped)
    back = min(limits.scan_entries, PAGE_BACK * limit)
    result["prev_from"] = page_before(store, result["from"], limit, topic=topic, max_records=back)
    newest = page_before(store, store.max_offset(), limit, topic=topic, max_records=back, reach=False)
    result["newest_from"] = newest if newest is not None and newest > result["from"] else None
    scanned = used = 0
    for entry in store.entries(start):
        scanned += 1
        if window is not None and isinstance(entry, Message) and window.stop is not None and \
                entry.physical_offset >= window.stop:
            break  # the window's last record is behind: no next page
        if isinstance(entry, Problem):
            if len(problems) < limits.max_problems:
                problems.append(problem_view(entry))
        elif isinstance(entry, Message) and (topic is None or entry.topic == topic) and (
                window is None or window.holds(entry.store_timestamp)):
            cost = _row_bytes(entry, limits)
            full = _full(rows, used, cost, limits)
            if len(rows) >= limit or full:
                result["next_from"] = entry.physical_offset
                if full:
                    result["scan_stopped"] = full
                break
            used += cost
            rows.append(_list_row(entry, limits, trace_topic, slim) | _inner_rows(entry, limits, LIST_INNER_ROWS, slim))
        if isinstance(entry, Problem):
            continue
        if scanned >= limits.scan_entries:
            result["next_from"] = entry.physical_offset + entry.total_size  # after this message or BLANK
            result["scan_stopped"] = f"stopped after walking {scanned} records"
            break
        if scanned % 256 == 0 and deadline.expired():
            result["next_from"] = entry.physical_offset + entry.total_size
            result["scan_stopped"] = deadline.note(f"walking {scanned} records")
            break
    return result


def message_detail(store: Store, offset: int, limits: Limits, body_format: str) -> dict:
    """One message, every field (``message_view`` with the decompressed body), plus the body shown as text,
    JSON or hex (capped at ``body_bytes``)."""
    msg = get_message_or_404(store, offset)
    view = message_view(msg, decompress=True, body_limit=limits.body_bytes, trace_topic=trace_topic_of(store))
    body = body_preview(msg, body_format, limits.body_bytes)
    text = body.for_html()
    if body.json_error is not None:
        text = f"(not JSON: {body.json_error})\n" + text
    inner = _inner_rows(msg, limits, INNER_ROWS)
    return {
        **inner,
        "message": view,
        "next_offset": next_message_offset(store, msg.end_offset),
        # the message before, in commitlog order (BLANKs and other segments' ends walked past, as next does);
        # None on the log's first message
        "prev_offset": page_before(store, msg.physical_offset, 1, max_records=PAGE_BACK, reach=False),
        "has_queue": has_queue(store, msg.topic, msg.queue_id),
        "body_format": body_format,
        "body_error": body.decompress_error,
        "body_length": body.length,
        "body_shown": body.shown,
        "body_total": body.total,
        "body_unit": body.unit,
        "body_text": text,
    }


def has_queue(store: Store, topic: str, queue_id: int) -> bool:
    """Whether the queue exists on disk: without it a link to the queue's page would 404 (a store copied without
    ``consumequeue/``), so the message and story pages link the topic in commitlog order instead ("in its
    topic", from the record's physical offset when they know it)."""
    key = (topic, queue_id)
    return key in set(store.queue_ids()) or key in set(store.batch_queue_ids())


INNER_ROWS = 1000  # inner messages listed on a batch record's page (INNER_NUM may be up to 32767)
LIST_INNER_ROWS = 100  # under a batch record in a commitlog-order list (its page lists up to INNER_ROWS)


def _inner_rows(msg: Message, limits: Limits, cap: int, slim: bool = False) -> dict:
    """A 5.x inner-batch record's messages, each a list row (queue offset base + i, its own keys, tags and
    body), at most ``cap`` of them (``inner_messages_total`` the full number); {} for another record."""
    if not is_inner_batch(msg):
        return {}
    try:
        found, error = inner_messages(msg), None
    except StoreError as e:
        found, error = [], e.reason
    return {"inner_messages": [_list_row(m, limits, slim=slim) for m in found[:cap]], "inner_messages_total": len(found),
            "inner_messages_error": error}


def get_message_or_404(store: Store, offset: int) -> Message:
    """The message starting at ``offset``; NotFound when none starts there (or it cannot be read): for a BLANK
    there, :func:`blank_at`'s words."""
    try:
        return store.message_at(offset)
    except StoreError as e:
        blank = blank_at(store, offset)
        if blank is not None:
            raise NotFound(blank["note"], e.file, e.offset) from None
        if isinstance(e, NotFound):
            raise
        raise NotFound(f"no readable message starts at physical offset {offset}: {e.reason}", e.file, e.offset) from None


def _region_holding(store: Store, offset: int):
    """The hex view's region holding ``offset`` (the engine's ``hex_window`` focus: a record, a BLANK, zeros,
    damage) and the window; (None, None) where no segment holds it."""
    try:
        window = hex_window(store, offset, 1, focus=offset)
    except StoreError:
        return None, None
    return window.current, window


def blank_at(store: Store, offset: int) -> dict | None:
    """The BLANK record (end-of-segment filler: TOTALSIZE and BLANK_MAGIC_CODE, then the segment's rest) starting
    at ``offset``: start, length, ``next_offset`` (the message after it, as "next record" finds it) and a
    ``note`` saying so; None when no BLANK starts there."""
    region, _ = _region_holding(store, offset)
    if region is None or region.kind != "blank" or region.start != offset:
        return None
    length = region.end - region.start
    after = next_message_offset(store, region.end)
    then = f"the next message is at {after}" if after is not None else "no message follows it"
    return {"start": offset, "length": length, "next_offset": after,
            "note": f"physical offset {offset} holds a BLANK record (end-of-segment filler of {length} bytes: the "
                    f"segment's unused end), not a message; {then}"}


def record_holding(store: Store, offset: int) -> dict | None:
    """The record or BLANK that ``offset`` falls inside (not at its start): kind, start, end (the record boundary
    after it) and a ``note`` saying so; None at a record boundary, in damage or outside the log."""
    region, _ = _region_holding(store, offset)
    if region is None or region.kind not in ("message", "blank") or region.start >= offset:
        return None
    what = (f"the BLANK record (end-of-segment filler of {region.end - region.start} bytes) at {region.start}"
            if region.kind == "blank" else f"the record at {region.start} ({region.end - region.start} bytes)")
    return {"kind": region.kind, "start": region.start, "end": region.end,
            "note": f"from {offset} is inside {what}: listed from the record boundary after it, {region.end}"}


# -- hex ----------------------------------------------------------------------------------------------------------


def hex_page(store: Store, offset: int, length: int) -> dict:
    """A page of the log around ``offset`` (within its segment) with the regions it overlaps.

    ``current`` is the region holding ``offset`` (the record the page is about); ``prev_offset`` and
    ``next_offset`` are the starts of the regions before and after it, across segments.
    """
    seg = hex_segment(store, offset)  # names an expired offset, or an entry that is no file
    seg_end = seg.start_offset + seg.file_size
    start = max(seg.start_offset, min((offset - length // 4) // 16 * 16, seg_end - length))
    window = hex_window(store, start, min(seg_end, start + length) - start, focus=offset)
    data, regs, current = window.data, window.regions, window.current
    end = window.end
    prev_offset, next_offset = window.prev_offset, window.next_offset
    return {
        "offset": offset,
        "window_start": start,
        "window_end": end,
        "length": len(data),
        "segment": {"name": seg.name, "file": seg.file, "start_offset": seg.start_offset, "end_offset": seg_end},
        "bytes_hex": data.hex(),
        "regions": [region_view(r) for r in regs],
        "current": None if current is None else {"kind": current.kind, "start": current.start, "end": current.end,
                                                 "label": current.label},
        "prev_offset": prev_offset,
        "next_offset": next_offset,
    }


def hex_rows(page: dict, data: bytes) -> list[dict]:
    """Rows of 16 bytes, each a list of spans: a run of bytes of one field (or one region without fields)."""
    start = page["window_start"]
    owner: list[tuple[int, int | None]] = [(-1, None)] * len(data)  # byte -> (region index, field index)
    for ri, r in enumerate(page["regions"]):
        a, b = max(r["start"], start), min(r["end"], start + len(data))
        for pos in range(a, b):
            owner[pos - start] = (ri, None)
        for fi, f in enumerate(r["fields"]):
            for pos in range(max(f["start"], a), min(f["start"] + f["length"], b)):
                owner[pos - start] = (ri, fi)
    cur = page["current"]
    message_number = {}
    n = 0
    for ri, r in enumerate(page["regions"]):
        if r["kind"] == "message":
            message_number[ri] = n
            n += 1
    rows = []
    for row_start in range(0, len(data), 16):
        spans = []
        i = row_start
        while i < min(row_start + 16, len(data)):
            key = owner[i]
            j = i + 1
            while j < min(row_start + 16, len(data)) and owner[j] == key:
                j += 1
            spans.append(_span(page, data, start, i, j, key, cur, message_number))
            i = j
        rows.append({"offset": start + row_start, "spans": spans, "pad": 16 - (min(row_start + 16, len(data)) - row_start)})
    return rows


def _span(page, data, base, i, j, key, cur, message_number) -> dict:
    ri, fi = key
    chunk = data[i:j]
    classes = []
    title = "outside any known region"
    first = base + i
    last = base + j - 1
    if ri >= 0:
        r = page["regions"][ri]
        classes.append(f"r-{r['kind']}")
        if ri in message_number:
            classes.append(f"tint{message_number[ri] % 2}")
        if cur is not None and r["start"] == cur["start"]:
            classes.append("current")
        if first == r["start"]:
            classes.append("rstart")
        if last == r["end"] - 1:
            classes.append("rend")
        title = f"{r['kind']} {r['label']} [{r['start']}..{r['end']})"
        if fi is not None:
            f = r["fields"][fi]
            value = f["value"] if len(f["value"]) <= 160 else f["value"][:160] + "…"
            title = f"#{f['number']} {f['name']} = {value}\n{title}"
            classes.append("field")
    return {
        "offset": first,
        "region": ri,
        "field": fi,
        "classes": " ".join(classes),
        "title": title,
        "hex": chunk.hex(" "),
        "ascii": "".join(chr(b) if 32 <= b < 127 else "." for b in chunk),
    }


# -- index chains ---------------------------------------------------------------------------------------------------


def step_kind(hash_matches: bool, key_matches: bool | None) -> str:
    """match: the key's own item; collision: same hash, another key; other: another hash in the slot;
    unreadable: same hash but the message could not be read to compare keys."""
    if not hash_matches:
        return "other"
    if key_matches is None:
        return "unreadable"
    return "match" if key_matches else "collision"


SAMPLE_COLLISION = ("OrderEvents", "coupon-Aa7K")  # the sample store's real hash collision (sample_store/README.md)


def chain_suggestion(store: Store, scan: int = 200) -> dict | None:
    """A key of the open store for the /chain landing: the sample store's collision when this store has it, else
    the first key among the first ``scan`` records; None when none of them has a key."""
    walks = store.chain(*SAMPLE_COLLISION)
    if any(s.key_matches for w in walks for s in w.steps) and any(
            s.hash_matches and s.key_matches is False for w in walks for s in w.steps):
        return {"topic": SAMPLE_COLLISION[0], "key": SAMPLE_COLLISION[1], "collision": True}
    for n, e in enumerate(store.entries()):
        if n >= scan:
            break
        if isinstance(e, Message) and e.keys:
            return {"topic": e.topic, "key": e.keys[0], "collision": False}
    return None


def chain_walks(store: Store, topic: str, key: str, limits: Limits, deadline: Deadline = NO_DEADLINE) -> list[ChainWalk]:
    """``Store.chain`` one index file at a time (newest first), each walk capped at ``chain_walk_items``; once
    ``deadline`` passes, the remaining files are listed as not searched."""
    return store.chain(topic, key, limit=limits.chain_walk_items, budget=deadline)


def chain_data(store: Store, topic: str, key: str, limits: Limits, deadline: Deadline = NO_DEADLINE) -> dict:
    """The chain of topic#key in every index file (newest first; see ``chain_walks``), items capped per file."""
    walks = chain_walks(store, topic, key, limits, deadline)
    readers = {r.rel: r for r in store.index_files()}
    files = []
    for walk in walks:
        view = chain_view(walk)
        reader = readers.get(walk.file)
        items = view["items"]
        for it in items:
            it["kind"] = step_kind(it["hash_matches"], it["key_matches"])
        mark_dangling(store, items[: limits.max_chain_items])
        view.update(
            name=reader.name if reader else walk.file.rsplit("/", 1)[-1],
            slot_count=reader.slot_count if reader else None,
            item_total=len(items),
            counts={k: sum(1 for it in items if it["kind"] == k) for k in ("match", "collision", "other", "unreadable")},
            items=items[: limits.max_chain_items],
            items_truncated=len(items) > limits.max_chain_items,
        )
        files.append(view)
    # no match in any file searched: the CLI key's not-found line ("expired: ..." when retention removed the
    # records its items point at); None when a message has the key, or when files went unsearched (not known)
    unsearched = sum(1 for w in walks if w.skipped_reason)
    found = any(f["counts"]["match"] for f in files)
    answer = None if found or unsearched else key_missing_reason(store, topic, key, walks)
    result = {"topic": topic, "key": key, "key_string": f"{topic}#{key}",
              "key_hash": walks[0].key_hash if walks else None, "hash_steps": key_hash_steps(f"{topic}#{key}"),
              "files": files,
              "files_not_searched": unsearched, "answer": answer}
    gaps = store.index_coverage()[1]
    if gaps:  # the log no index file covers: scanned for the key, as the CLI's key does (each hit marked)
        result.update(unindexed_view(gaps, True))
        # a partial answer says so: past the request's time budget the page says how far the scan got
        hits, result["found_by_scan_stopped"] = store.scan_unindexed(topic, key, deadline)
        result["found_by_scan"] = [{"physical_offset": h.message.physical_offset, "note": h.note} for h in hits]
        if hits:  # found after all: no not-found answer
            result["answer"] = None
    return result


def mark_dangling(store: Store, items: list[dict]) -> None:
    """Each index item's ``dangling``: why no readable message starts where it points (``phy_offset``: the
    message page there would 404), else None; and ``has_bytes``: whether a segment holds that offset. A drawing
    links a dangling item to its bytes instead, or nowhere when no segment holds them (retention removed it)."""
    why: dict[int, str | None] = {}
    for it in items:
        offset = it["phy_offset"]
        if offset not in why:
            try:
                get_message_or_404(store, offset)
                why[offset] = None
            except StoreError as e:
                why[offset] = e.reason
        it["dangling"] = why[offset]
        it["has_bytes"] = why[offset] is None or holds_offset(store, offset)


def get_index_file_or_404(store: Store, name: str) -> IndexFileReader:
    """The index file called ``name`` among the store's own (a name, never a path)."""
    for reader in store.index_files():
        if reader.name == name:
            return reader
    raise NotFound(f"no index file named {name!r} in this store", "index")


def slot_data(store: Store, name: str, slot: int | None, limits: Limits, bins: int = 128) -> dict:
    """One index file's slot occupancy strip and busiest slots, and with ``slot`` that slot's chain."""
    reader = get_index_file_or_404(store, name)
    result = {
        "index_file": index_file_view(reader.info()),
        "occupancy": slot_occupancy(reader, bins),
        "busiest": [{"slot": s, "items": n} for s, n in busiest_slots(reader, 20)],
        "slot": None,
    }
    if slot is None:
        return result
    if not 0 <= slot < reader.slot_count:
        raise NotFound(f"{name} has {reader.slot_count} slots; there is no slot {slot}", reader.rel)
    chain = walk_slot(reader, slot, limit=limits.max_chain_items + 1)
    items = [
        {"item": it.number, "key_hash": it.key_hash, "phy_offset": it.phy_offset, "time_diff": it.time_diff,
         "time": it.time_ms(reader.header.begin_timestamp), "prev_index": it.prev_index}
        for it in chain.items
    ]
    mark_dangling(store, items[: limits.max_chain_items])
    result["slot"] = {
        "file": chain.file, "slot": chain.slot, "slot_position": chain.slot_position, "slot_value": chain.slot_value,
        "stop_reason": chain.stop_reason, "items": items[: limits.max_chain_items],
        "items_truncated": len(items) > limits.max_chain_items,
    }
    return result


# -- teaching ----------------------------------------------------------------------------------------------------


def teach_data(hashes: list[int], slot_count: int, step: int, lookup_hash: int | None) -> dict:
    """The index after ``step`` inserts (0: empty), what the last insert changed, and a lookup's walk."""
    steps = build_steps(hashes, slot_count)
    if not 0 <= step <= len(steps):
        raise BadInput(f"step must be in [0, {len(steps)}], not {step}")
    if step == 0:
        state = {"number": 0, "key_hash": None, "slot": None, "old_slot_value": None, "slots": [0] * slot_count,
                 "items": [], "hash_slot_count": 0, "index_count": 1,
                 "explanation": f"An empty index: {slot_count} slots all 0, indexCount 1 (item 0 is never used)."}
    else:
        s = steps[step - 1]
        state = {"number": s.number, "key_hash": s.key_hash, "slot": s.slot, "old_slot_value": s.old_slot_value,
                 "slots": list(s.slots), "items": [{"item": i.number, "key_hash": i.key_hash, "prev_index": i.prev_index}
                                                   for i in s.items],
                 "hash_slot_count": s.hash_slot_count, "index_count": s.index_count, "explanation": s.explanation}
    if lookup_hash is None:
        lookup_hash = state["key_hash"] if state["key_hash"] is not None else (hashes[0] if hashes else 0)
    walk = lookup(steps[:step], lookup_hash)
    return {
        "hashes": list(hashes),  # hashCodes as typed: each step's explanation shows the keyHash made of it
        "slot_count": slot_count,
        "step": step,
        "steps": len(steps),
        "prev_step": step - 1 if step > 0 else None,
        "next_step": step + 1 if step < len(steps) else None,
        "state": state,
        "lookup": {"key_hash": walk.key_hash, "slot": walk.slot, "visited": list(walk.visited),
                   "matches": list(walk.matches)},
    }


# -- ids -----------------------------------------------------------------------------------------------------------


def resolve_data(store: Store, text: str) -> dict:
    """``id_overview``: both readings of a 32/56-hex id (the CLI's ``decode-id --json`` fields), each checked
    against the store; ``found_as`` is empty when neither is in it."""
    return id_overview(text, store)


def search(store: Store, text: str | None, *, fixed: bool, ignore_case: bool, fields: str | None,
           topic: str | None, tag: str | None, limit: int, limits: Limits, deadline: Deadline = NO_DEADLINE,
           since: int | None = None, until: int | None = None) -> dict:
    """The search page (``rmq-inspect grep``): at most ``limit`` hits as ``grep_hit_view``s, the problems met (at
    most ``max_problems``) and ``truncated``: why the search stopped early (the limit, the request's budget),
    None when it read the whole log. No ``text``: the empty form."""
    result: dict = {"q": text, "fixed": fixed, "ignore_case": ignore_case, "fields": fields, "topic": topic,
                    "tag": tag, "limit": limit, "hits": [], "problems": [], "end": None, "since": since, "until": until}
    if text is None:
        return result
    pattern = compile_pattern(text, fixed=fixed, ignore_case=ignore_case)  # BadInput: a 400 page naming it
    wanted = parse_fields(fields) if fields else SEARCH_FIELDS
    for item in grep(store, pattern, fields=wanted, topic=topic, tag=tag, limit=limit, budget=deadline, since=since,
                     until=until):
        if isinstance(item, GrepHit):
            result["hits"].append(grep_hit_view(item))
        elif isinstance(item, Problem):
            if len(result["problems"]) < limits.max_problems:
                result["problems"].append(problem_view(item))
        else:
            result["end"] = grep_end_view(item)
    return result
