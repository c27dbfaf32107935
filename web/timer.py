"""The timer wheel page (``/timer``, ``/api/timer``): the 5.x timer store's summary, its non-empty slots, and one
slot's chain drawn like the index chain (slot cell, then each timer-log unit as a box linked to its
rmq_sys_wheel_timer record, prev_pos arrows between them), hops against num. Bounded like every page."""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup

from inspector.engine import (
    NotFound,
    Store,
    open_timer,
    short_time,
    timer_chain_view,
    timer_slot_views,
    timer_summary,
)
from web.svg import BOX_H, BOX_W, GAP, PER_ROW, _box_positions, _connector, _item_box, _svg, _text, el

Link = Callable[[int], str]


def timer_data(store: Store, slot: int | None, max_rows: int, max_hops: int) -> dict:
    """Summary, the first ``max_rows`` non-empty slots, and with ``slot`` its chain (at most ``max_hops`` hops
    walked: ``hops_truncated`` says when cut)."""
    timer = open_timer(store)
    summary = timer_summary(timer)
    slots = list(timer_slot_views(timer, 0, max_rows + 1))
    result = {**summary, "slots": slots[:max_rows], "slots_truncated": len(slots) > max_rows,
              "slots_total": summary["wheel"]["non_empty_slots"] if summary["wheel"] else 0, "chain": None}
    if slot is None:
        return result
    if timer.slot(slot) is None:
        raise NotFound(f"slot {slot} of the timer wheel is empty", "timerwheel", slot * 32)
    chain = timer.walk(slot, limit=max_hops)
    result["chain"] = timer_chain_view(timer, chain) | {"hops_truncated": chain.truncated}
    return result


def timer_chain_svg(view: dict, link: Link) -> Markup:
    """A slot's chain: the slot cell (time, first/last pos, num), then one ``g.unit`` per hop (``data-kind``
    unit / delete / roll / missing), each linked to its record's message page."""
    hops = view["chain"]
    left, top = 16, 100
    pos = _box_positions(len(hops), top, left)
    width = left * 2 + PER_ROW * BOX_W + (PER_ROW - 1) * GAP
    height = top + max(1, (len(hops) + PER_ROW - 1) // PER_ROW) * (BOX_H + GAP) + 10
    verdict = {True: "num matches", False: "num does NOT match", None: "num not known (walk cut)"}[view["num_matches"]]
    slot_cell = el("g", {"class": "slotcell", "data-slot": view["slot"], "data-num": view["num"]},
                   el("rect", {"x": left, "y": 10, "width": 520, "height": 64, "rx": 6, "class": "box"}),
                   _text(left + 8, 28, f"slot {view['slot']}: time {view['date']}", "box-title"),
                   _text(left + 8, 45, f"num {view['num']}; {view['hops']} hop(s) count {view['counted']} "
                         f"(+1 unit, -1 DELETE): {verdict}", "box-line"),
                   _text(left + 8, 62, "last_pos → prev_pos → … → -1 (newest unit first)", "box-line"))
    parts = [slot_cell]
    if hops:
        fx, fy = pos[0]
        parts.append(el("path", {"d": f"M {left + 60} 74 L {left + 60} 86 L {fx + BOX_W / 2} 86 L {fx + BOX_W / 2} {fy}",
                                 "class": "link", "marker-end": "url(#arrow)"}))
    for i in range(len(hops) - 1):
        unit = hops[i]["unit"]
        parts.append(_connector(pos[i], pos[i + 1], "prev", f"prev {unit['prev_pos'] if unit else '?'}"))
    for hop, (x, y) in zip(hops, pos, strict=True):
        unit = hop["unit"]
        if unit is None:
            parts.append(_item_box(x, y, [("hop", str(hop["hop"])), ("offset", str(hop["offset"])),
                                          ("", "no unit here")], "unit kind-missing", None,
                                   {"hop": hop["hop"], "kind": "missing"}))
            continue
        kind = "delete" if unit["delete"] else "roll" if unit["roll"] else "unit"
        rec = unit["record"]
        lines = [("hop", f"{hop['hop']} @ {unit['offset']}"), ("", "|".join(unit["magic_names"])),
                 ("due", short_time(unit["delivery_time"], "s")),
                 ("topic", str(unit["topic"] or f"hash {unit['topic_hash']}")),
                 ("record", str(unit["commitlog_offset"])),
                 ("", (rec["unique_key"] or rec["msg_id"] or "")[:26] if rec else "no record")]
        parts.append(_item_box(x, y, lines, f"unit kind-{kind}", link(rec["physical_offset"]) if rec else None,
                               {"hop": hop["hop"], "kind": kind, "offset": unit["offset"]},
                               mark=None if hop["in_slot"] else "other slot"))
    return _svg(width, height, "timer-chain", f"Chain of timer wheel slot {view['slot']}", *parts, slot=view["slot"],
                hops=len(hops))
