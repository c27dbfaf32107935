"""JSON API: the data behind each page, with the CLI's ``--json`` field names, under ``/api/``.

64-bit offsets are strings (see ``web.offsets`` for the list of fields). Errors are JSON too:
``{"status": 400, "error": "Bad Request", "message": "..."}`` with that HTTP status.

| route | data |
| --- | --- |
| ``/api/`` | overview: ``info --json`` fields |
| ``/api/messages?topic=&queue=&from=&limit=`` | a page of ``message_view``s (body capped), ``next_from``; ``from_note`` when ``from`` fell inside a record or BLANK (the list starts after it) |
| ``/api/message/<physical offset>`` | one ``message_view`` with the decompressed body (capped); an inner-batch record also ``inner_messages`` |
| ``/api/hex?offset=&length=`` | ``hex --json`` fields plus ``current``, ``prev_offset``, ``next_offset`` |
| ``/api/chain?topic=&key=`` | ``chain --json`` fields; each item also has ``kind`` and ``dangling`` (why no readable message starts where it points, else null); ``answer``: ``key``'s not-found line when no message has the key ("expired: ..." or "no message indexed under ..."), else null |
| ``/api/slot?file=&slot=`` | index file, occupancy strip, busiest slots, the slot's chain (each item with ``dangling``) |
| ``/api/teach?hashes=&slots=&step=&lookup=`` | the teaching index at one step |
| ``/api/resolve?id=`` | ``decode-id --json`` fields (404 when neither reading is in the store) |
| ``/api/story?ref=&key=`` | ``story --json`` fields (``story_view``: records by role, groups, searched, notes), ``committed`` a string; ``records_total`` / ``records_truncated``; ``unindexed_scanned`` False: the log no index covers was not scanned (``notes`` says so) |
| ``/api/search?q=&fixed=1&i=1&in=&topic=&tag=&limit=`` | ``grep --json`` hits, ``problems``, ``end`` (``truncated``: why the search stopped early) |
| ``/api/groups?name=&limit=`` | ``groups --json`` (at most ``max_rows`` groups, ``shown_of``); with ``name`` ``group --json`` (at most ``max_rows`` queues, ``queues_total``; 404 naming the groups there are) |
| ``/api/stats?by=`` | ``stats --json`` (``stats_view``; at most ``max_rows`` rows, ``rows_total``); an unknown ``by`` is a 400 |
| ``/api/timer?slot=`` | ``timer --summary --json`` fields, the non-empty slots (capped), with ``slot`` its chain (``timer --slot``) |

Every answer is bounded (``web.data.Limits``) and says where it was cut: ``scan_stopped`` with ``next_from``
on message pages (record count, page bytes or the request's time budget), ``items_truncated`` and the walk's
``stop_reason`` / ``skipped_reason`` on chains and slots, ``<table>_total`` next to the overview's capped
tables, ``truncated`` on the overview, ``/api/tour`` and ``/api/exercises`` when the time budget ran out. A request queued behind a long one for more than ``busy_seconds`` gets a 503 with ``Retry-After``.
"""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify

from inspector.engine import expired_id_reason
from web import data, microcache, story, timer
from web.offsets import stringify_offsets
from web.params import (
    chain_args,
    get_deadline,
    get_limits,
    get_store,
    group_args,
    hex_args,
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

bp = Blueprint("api", __name__, url_prefix="/api")


def send(value, status: int = 200):
    return jsonify(stringify_offsets(value)), status


@bp.route("/")
def overview():
    d = data.overview(get_store(), get_limits(), get_deadline())
    if not data.overview_done(d):
        microcache.transient()
    # the API's index (issue 33): every endpoint, so a client finds them from here
    return send({**d, "endpoints": sorted(str(r) for r in current_app.url_map.iter_rules() if str(r).startswith("/api/"))})


@bp.route("/search")
def search():
    return send(data.search(get_store(), limits=get_limits(), deadline=get_deadline(), **search_args()))
@bp.route("/stats")
def stats():
    return send(data.stats_data(get_store(), stats_by_arg(), get_limits(), **window_args()))


@bp.route("/groups")
def groups():
    name, limit = group_args()
    if name is None:
        return send(data.groups_data(get_store(), get_limits()))
    return send(data.group_data(get_store(), name, limit, get_limits()))


@bp.route("/messages")
def messages():
    return send(data.message_list(get_store(), limits=get_limits(), deadline=get_deadline(), **list_args()))


@bp.route("/message/<offset>")
def message(offset: str):
    detail = data.message_detail(get_store(), offset_value(offset), get_limits(), "text")
    inner = {k: v for k, v in detail.items() if k.startswith("inner_messages")}  # an inner-batch record's messages
    return send({**detail["message"], **inner})


@bp.route("/hex")
def hex_view():
    return send(data.hex_page(get_store(), *hex_args()))


@bp.route("/chain")
def chain():
    topic, key = chain_args()
    if topic is None:
        abort(400, description="topic and key are required")
    return send(data.chain_data(get_store(), topic, key, get_limits(), get_deadline()))


@bp.route("/slot")
def slot():
    name, slot_no = slot_args()
    if name is None:
        return send({"index_files": [r.name for r in get_store().index_files()]})
    return send(data.slot_data(get_store(), name, slot_no, get_limits()))


@bp.route("/timer")
def timer_view():
    limits = get_limits()
    return send(timer.timer_data(get_store(), timer_args(), limits.max_rows, limits.max_chain_items))


@bp.route("/teach")
def teach():
    return send(data.teach_data(*teach_args()))


@bp.route("/story")
def story_view():
    ref = text_arg("ref", required=True)
    return send(story.story_data(get_store(), ref, text_arg("key"), get_limits(), deadline=get_deadline()))


@bp.route("/resolve")
def resolve():
    text = text_arg("id", required=True)
    d = data.resolve_data(get_store(), text)
    if not d["found_as"]:
        # an offset msgId whose record retention removed: "expired", not a typo's "no message"
        why = expired_id_reason(get_store(), d["id"]) or f"no message with id {d['id']} in this store"
        return send(d | {"status": 404, "error": "Not Found", "message": why}, 404)
    return send(d)
