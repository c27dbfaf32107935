"""HTML pages. Each view reads its arguments, calls one ``web.data`` function (one engine call) and renders."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from inspector.engine import BY as STATS_BY
from inspector.engine import NotFound, byte_readings, fmt_time, short_time, timer_line, unknown_topic_note
from web import data, hexpage, microcache, story, svg, timer
from web.offsets import stringify_offsets
from web.params import (
    body_format_arg,
    chain_args,
    get_deadline,
    get_limits,
    get_store,
    group_args,
    hex_page_args,
    hex_spelled,
    list_args,
    offset_value,
    search_args,
    slot_args,
    stats_by_arg,
    teach_args,
    text_arg,
    timer_args,
    window_args,
)

bp = Blueprint("pages", __name__)
TOPIC_PICKER = 1000  # names offered in the messages page's topic picker


def message_link(offset: int) -> str:
    return url_for("pages.message", offset=offset)


def bytes_link(offset: int) -> str:
    """Where an item into no readable record links: the hex view of the bytes it points at."""
    return url_for("pages.hex_view", offset=offset)


@bp.app_template_filter("when")
def when(ms: int | None, unit: str = "ms") -> str:
    """Compact time with its zone for tables (the engine's short_time); the JSON API carries the raw ms."""
    return short_time(ms, unit)


@bp.app_template_filter("when_input")
def when_input(ms: int | None) -> str:
    """A window field's value: the time read, with its offset ('' when not given), so it reads back the same."""
    return "" if ms is None else fmt_time(ms) if ms > 0 else str(ms)


@bp.route("/")
def overview():
    d = data.overview(get_store(), get_limits(), get_deadline())
    if not data.overview_done(d):
        microcache.transient()
    return render_template("overview.html", d=d, timer_line=timer_line(get_store()),
                           next_start=data.next_start(get_store()) if d["walk"]["done"] else None)


@bp.route("/messages")
def messages():
    typed = hex_spelled(request.args.get("from"))
    if typed is not None:  # from=0x3a4c: the page of its decimal URL
        return redirect(url_for("pages.messages", **{**request.args.to_dict(), "from": typed}))
    d = data.message_list(get_store(), limits=get_limits(), deadline=get_deadline(), slim=True, **list_args())
    # the topic picker (a datalist: the browser offers the names as one types) and, for a name the store does not
    # know, one line saying so at once (a big store's walk would otherwise page on to find nothing)
    topics = get_store().topics()
    note = unknown_topic_note(d["topic"], topics) if d.get("topic") else None
    return render_template("messages.html", d=d, marks=data.group_marks(get_store(), d),
                           topics=topics[:TOPIC_PICKER], topic_note=note)


@bp.route("/message/<offset>")
def message(offset: str):
    typed = hex_spelled(offset)
    if typed is not None:  # /message/0x3a4c: the page of its decimal URL
        return redirect(url_for("pages.message", offset=typed, **request.args.to_dict()))
    value = offset_value(offset)
    try:
        d = data.message_detail(get_store(), value, get_limits(), body_format_arg())
    except NotFound as e:
        blank = data.blank_at(get_store(), value)
        if blank is None:
            raise
        # a BLANK is no message (404), but the page says what it is and links where to go on
        links = [("hex view", url_for("pages.hex_view", offset=value))]
        if blank["next_offset"] is not None:
            links.append(("next record ▶", url_for("pages.message", offset=blank["next_offset"])))
        return render_template("error.html", status=404, title="Not Found", message=str(e), links=links), 404
    return render_template("message.html", d=d, m=d["message"])


@bp.route("/search")
def search():
    """Messages whose body, keys, tags or properties match (``rmq-inspect grep``), within the request's budget."""
    d = data.search(get_store(), limits=get_limits(), deadline=get_deadline(), **search_args())
    return render_template("search.html", d=d)
@bp.route("/stats")
def stats():
    d = data.stats_data(get_store(), stats_by_arg(), get_limits(), **window_args())
    unit = d["rate"]["unit"]
    return render_template("stats.html", d=d, by_keys=STATS_BY,
                           rate_svg=svg.bars_svg([(when(b["start_ms"], "min"), b["messages"]) for b in d["rate"]["buckets"]],
                                                 f"records per {unit}, store time", "stats-rate"),
                           size_svg=svg.bars_svg([(b["bucket"], b["messages"]) for b in d["size_buckets"]],
                                                 "records by size (TOTALSIZE)", "stats-sizes"))


@bp.route("/groups")
def groups():
    name, limit = group_args()
    if name is None:
        return render_template("groups.html", d=data.groups_data(get_store(), get_limits()))
    return render_template("group.html", d=data.group_data(get_store(), name, limit, get_limits()))


@bp.route("/hex")
def hex_view():
    text, length, addr = hex_page_args()
    offset = get_store().min_offset if text is None else hexpage.jump_target(get_store(), text)
    if offset is None:
        abort(400, description=f"offset must be a physical offset (decimal, 0x hex) or a msgId, not {text[:40]!r}")
    # the page keeps its own spelling (decimal); "jump to" typed as 0x, 14,924 or a msgId lands there
    keep = {"length": length if request.args.get("length", "").strip() else None,
            "addr": addr if addr != "dec" else None}
    if text is not None and not (text.isascii() and text.isdigit()):
        return redirect(url_for("pages.hex_view", offset=offset, **keep))
    d = data.hex_page(get_store(), offset, length)
    raw = bytes.fromhex(d["bytes_hex"])
    rows = data.hex_rows(d, raw)
    script_data = stringify_offsets({"current": d["current"], "regions": d["regions"]})
    cursor = {"offset": offset, "field": hexpage.field_at(d, offset),
              "values": byte_readings(raw, offset - d["window_start"])}
    return render_template("hex.html", d=d, rows=rows, script_data=script_data, keep=keep, addr=addr, cursor=cursor)


@bp.route("/chain")
def chain():
    topic, key = chain_args()
    d = data.chain_data(get_store(), topic, key, get_limits(), get_deadline()) if topic is not None else None
    drawings = [svg.chain_svg(f, message_link, bytes_link) for f in d["files"]] if d else []
    suggestion = data.chain_suggestion(get_store()) if d is None else None
    return render_template("chain.html", d=d, drawings=drawings, topic=topic or "", key=key or "",
                           legend=svg.legend(("match", "collision", "other", "unreadable")), suggestion=suggestion)


def _slot_link(name: str):
    """slot number -> the URL of that slot page of index file ``name``: url_for once, the slot its last parameter
    (a heat strip links 128 cells: url_for for each was a third of a slot page's time)."""
    zero = url_for("pages.slot", file=name, slot=0)
    head = zero.removesuffix("slot=0")
    if head == zero or not head.endswith(("?", "&")):
        return lambda s: url_for("pages.slot", file=name, slot=s)
    return lambda s: f"{head}slot={int(s)}"


@bp.route("/slot")
def slot():
    name, slot_no = slot_args()
    if name is None:
        return render_template("slot.html", d=None, files=[r.info() for r in get_store().index_files()])
    d = data.slot_data(get_store(), name, slot_no, get_limits())
    f = d["index_file"]
    strip = svg.heat_strip(d["occupancy"], f["slot_count"], _slot_link(f["name"]), slot_no)
    drawing = svg.slot_svg(d["slot"], message_link, bytes_link) if d["slot"] else None
    return render_template("slot.html", d=d, strip=strip, drawing=drawing, files=None)


@bp.route("/timer")
def timer_page():
    limits = get_limits()
    d = timer.timer_data(get_store(), timer_args(), limits.max_rows, limits.max_chain_items)
    drawing = timer.timer_chain_svg(d["chain"], message_link) if d["chain"] else None
    return render_template("timer.html", d=d, drawing=drawing)


@bp.route("/teach")
def teach():
    hashes, slots, step, lookup_hash = teach_args()
    d = data.teach_data(hashes, slots, step, lookup_hash)
    return render_template("teach.html", d=d, drawing=svg.teach_svg(d), hashes_text=",".join(map(str, hashes)),
                           lookup_arg=request.args.get("lookup", ""))


@bp.route("/story")
def story_page():
    ref, key = text_arg("ref"), text_arg("key")
    if ref is None:
        return render_template("story.html", d=None, ref="", key=key or "")
    d = story.story_data(get_store(), ref, key, get_limits(), deadline=get_deadline())
    return render_template("story.html", d=d, ref=ref, key=key or "",
                           has_queue=lambda topic, queue_id: data.has_queue(get_store(), topic, queue_id))


@bp.route("/resolve")
def resolve():
    text = text_arg("id")
    if text is None:
        return render_template("resolve.html", d=None, id_text="")
    d = data.resolve_data(get_store(), text)
    return render_template("resolve.html", d=d, id_text=text), (200 if d["found_as"] else 404)
