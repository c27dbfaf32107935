"""Server-side SVG from engine data: an index file's chain for a key, a slot's chain, the teaching index,
and a heat strip of slot occupancy.

Every text and attribute value goes through ``markupsafe.escape`` (keys, topics and hashes come from the
store and are untrusted); only ``Markup`` built here is inserted raw. No inline styles: colours come from
classes in ``static/style.css`` (the Content-Security-Policy forbids inline style), or SVG presentation
attributes for the heat strip. Tests count the classes and ``data-`` attributes documented on each function.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable

from markupsafe import Markup, escape

from inspector.engine import short_time

Link = Callable[[int], str]  # physical offset -> URL of the message page (or, for a dangling item, of its bytes)
DANGLING_MARK = "⚠ no record: its bytes"  # an item into no readable record links to the hex view there
GONE_MARK = "⚠ no record, no bytes"  # ... or to nothing, when no segment holds its offset (retention)

BOX_W, BOX_H, GAP = 232, 104, 58  # 232: a time with its zone (30 monospace characters) fits a box
PER_ROW = 4
KIND_MARK = {"match": "✓ key matches", "collision": "⚠ COLLISION: same hash, other key", "other": "other hash",
             "unreadable": "? message unreadable"}


def el(tag: str, attrs: dict | None = None, *children: object) -> Markup:
    """``<tag attrs>children</tag>``; str children and every attribute value are escaped."""
    parts = [f"<{tag}"]
    for name, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        parts.append(f' {name}="{escape(value)}"')
    if not children:
        return Markup("".join(parts) + "/>")
    body = "".join(str(c) if isinstance(c, Markup) else str(escape(c)) for c in children)
    return Markup("".join(parts) + ">" + body + f"</{tag}>")


def _svg(width: int, height: int, cls: str, label: str, *children: Markup, **data: object) -> Markup:
    # an image's parts are presentational to a screen reader: one with links (boxes, heat cells) is a labelled group,
    # so its links stay reachable (axe-core: nested-interactive)
    role = "group" if any("<a " in c for c in children) else "img"
    attrs = {"xmlns": "http://www.w3.org/2000/svg", "class": cls, "width": width, "height": height,
             "viewBox": f"0 0 {width} {height}", "role": role, "aria-label": label}
    attrs.update({f"data-{k.replace('_', '-')}": v for k, v in data.items()})
    # each drawing's own arrowhead id: a page draws several (the chain page one per index file) and ids are unique
    # in a page. Only our attribute text is replaced: store text in an attribute has its quotes escaped.
    arrow = "arrow-" + hashlib.blake2s(f"{cls}|{label}|{data}".encode(), digest_size=4).hexdigest()
    children = tuple(Markup(str(c).replace(ARROW_REF, f'marker-end="url(#{arrow})"')) for c in children)
    return el("svg", attrs, el("title", None, label), _defs(arrow), *children)


ARROW_REF = 'marker-end="url(#arrow)"'  # what the drawings below write; _svg makes it the drawing's own


def _defs(arrow: str) -> Markup:
    marker = el("marker", {"id": arrow, "viewBox": "0 0 10 10", "refX": 9, "refY": 5, "markerWidth": 8,
                           "markerHeight": 8, "markerUnits": "userSpaceOnUse", "orient": "auto-start-reverse"},
                el("path", {"d": "M 0 0 L 10 5 L 0 10 z", "class": "arrowhead"}))
    return el("defs", None, marker)


def _text(x: float, y: float, text: object, cls: str = "", **attrs: object) -> Markup:
    return el("text", {"x": round(x, 1), "y": round(y, 1), "class": cls or None, **attrs}, str(text))


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _box_positions(count: int, top: int, left: int) -> list[tuple[int, int]]:
    return [(left + (i % PER_ROW) * (BOX_W + GAP), top + (i // PER_ROW) * (BOX_H + GAP)) for i in range(count)]


def _connector(a: tuple[int, int], b: tuple[int, int], cls: str, label: str) -> Markup:
    """Arrow from box a to box b (next in the row, or first of the next row)."""
    (ax, ay), (bx, by) = a, b
    if ay == by:
        d = f"M {ax + BOX_W} {ay + BOX_H / 2} L {bx} {by + BOX_H / 2}"
        lx, ly = ax + BOX_W + GAP / 2, ay + BOX_H / 2 - 5
    else:
        mid = ay + BOX_H + GAP / 2
        d = f"M {ax + BOX_W / 2} {ay + BOX_H} L {ax + BOX_W / 2} {mid} L {bx + BOX_W / 2} {mid} L {bx + BOX_W / 2} {by}"
        lx, ly = (ax + bx + BOX_W) / 2, mid - 4
    return el("g", {"class": cls}, el("path", {"d": d, "class": "link", "marker-end": "url(#arrow)"}),
              _text(lx, ly, label, "link-label", **{"text-anchor": "middle"}))


def _item_box(x: int, y: int, lines: list[tuple[str, str]], cls: str, href: str | None, data: dict,
              mark: str | None = None, note: str | None = None) -> Markup:
    """A box of labelled lines; ``mark`` is a badge under the title (the collision mark); ``note`` its tooltip."""
    children = [el("title", None, note)] if note else []
    children.append(el("rect", {"x": x, "y": y, "width": BOX_W, "height": BOX_H, "rx": 6, "class": "box"}))
    for n, (label, value) in enumerate(lines):
        cls_line = "box-title" if n == 0 else "box-line"
        children.append(_text(x + 8, y + 17 + n * 15, f"{label} {value}" if label else value, cls_line))
    if mark:
        children.append(el("g", {"class": "mark"},
                           el("rect", {"x": x + BOX_W - 92, "y": y + 5, "width": 86, "height": 17, "rx": 3,
                                       "class": "mark-bg"}),
                           _text(x + BOX_W - 49, y + 17.5, mark, "mark-text", **{"text-anchor": "middle"})))
    group = el("g", {"class": cls, **{f"data-{k}": v for k, v in data.items() if v is not None}}, *children)
    if href is None:
        return group
    return el("a", {"href": href, "class": "box-link"}, group)


def _item_target(it: dict, link: Link, bytes_link: Link | None) -> tuple[str | None, str | None]:
    """An index item's link and tooltip: its message page; for an item into no readable record (``dangling``,
    from ``web.data.mark_dangling``) the hex view of the bytes it points at (``bytes_link``), or none when no
    segment holds them (``has_bytes`` False: retention removed the segment)."""
    offset, why = it["phy_offset"], it.get("dangling")
    if not why:
        return link(offset), None
    if bytes_link is None or not it.get("has_bytes", True):
        return None, f"item {it['item']}: {why}"
    return bytes_link(offset), f"item {it['item']}: {why}; its link shows the bytes there"


def chain_svg(view: dict, link: Link, bytes_link: Link | None = None) -> Markup:
    """One index file's walk for a key (a ``web.data.chain_data`` file entry).

    The key box (key string, hash, slot), the slot cell, then one ``g.item`` per visited item with
    ``data-kind`` = match / collision / other / unreadable and class ``item kind-<kind>``; collisions carry a
    ``g.mark`` badge. Each item links to ``/message/<phy_offset>``; one into no readable record (``dangling``,
    ``data-dangling``, class ``dangling``) to its bytes (``bytes_link``) with the reason as its tooltip.
    """
    items = view["items"]
    left, top = 16, 150
    pos = _box_positions(len(items), top, left)
    width = left * 2 + PER_ROW * BOX_W + (PER_ROW - 1) * GAP
    rows = max(1, (len(items) + PER_ROW - 1) // PER_ROW)
    height = top + rows * (BOX_H + GAP) + 10
    slot_count = view.get("slot_count")
    key_box = el("g", {"class": "keybox"},
                 el("rect", {"x": left, "y": 10, "width": 430, "height": 64, "rx": 6, "class": "box"}),
                 _text(left + 8, 28, _clip(view["key"], 60), "box-title"),
                 _text(left + 8, 45, f"hashCode → keyHash {view['key_hash']}", "box-line"),
                 _text(left + 8, 62, f"slot = {view['key_hash']} % {slot_count} = {view['slot']}"
                       if slot_count else f"slot {view['slot']}", "box-line"))
    slot_cell = el("g", {"class": "slotcell", "data-slot": view["slot"], "data-value": view["slot_value"]},
                   el("rect", {"x": 480, "y": 10, "width": 90, "height": 18, "class": "slot-dim"}),
                   _text(525, 23, "…", "box-line", **{"text-anchor": "middle"}),
                   el("rect", {"x": 480, "y": 28, "width": 90, "height": 30, "class": "slot-cur"}),
                   _text(488, 48, f"[{view['slot']}] = {view['slot_value']}", "box-title"),
                   el("rect", {"x": 480, "y": 58, "width": 90, "height": 18, "class": "slot-dim"}),
                   _text(525, 71, "…", "box-line", **{"text-anchor": "middle"}),
                   _text(580, 40, f"slot table, byte {view['slot_position']}", "box-line"),
                   _text(580, 56, f"stop: {_clip(view['skipped_reason'] or view['stop_reason'], 48)}", "box-line"))
    parts = [key_box, slot_cell,
             el("path", {"d": f"M {left + 430} 42 L 478 42", "class": "link", "marker-end": "url(#arrow)"})]
    if items:
        fx, fy = pos[0]
        parts.append(el("path", {"d": f"M 525 76 L 525 110 L {fx + BOX_W / 2} 110 L {fx + BOX_W / 2} {fy}",
                                 "class": "link", "marker-end": "url(#arrow)"}))
    else:
        parts.append(_text(left, top + 20, "no item in this slot's chain", "box-line"))
    for i in range(len(items) - 1):
        parts.append(_connector(pos[i], pos[i + 1], "prev", f"prev {items[i]['prev_index']}"))
    for it, (x, y) in zip(items, pos, strict=True):
        kind = it["kind"]
        href, note = _item_target(it, link, bytes_link)
        lines = [("item", str(it["item"])), ("hash", str(it["key_hash"])), ("offset", str(it["phy_offset"])),
                 ("", short_time(it["time"])), ("prev →", str(it["prev_index"])),
                 ("", (DANGLING_MARK if href else GONE_MARK) if note else KIND_MARK[kind] if kind != "collision" else "same hash, other key")]
        parts.append(_item_box(x, y, lines, f"item kind-{kind}" + (" dangling" if note else ""), href,
                               {"item": it["item"], "kind": kind, "offset": it["phy_offset"],
                                "dangling": "1" if note else None},
                               mark="⚠ collision" if kind == "collision" else None, note=note))
    label = f"Index chain of {view['key']} in {view['file']}"
    return _svg(width, height, "chain", label, *parts, file=view["name"], items=len(items))


def slot_svg(slot: dict, link: Link, bytes_link: Link | None = None) -> Markup:
    """Any slot's chain (a ``web.data.slot_data`` slot): ``g.item`` boxes, classed ``hash-<n>`` by distinct
    hash so items sharing a hash (one key, or a collision) share a colour; a dangling item as in
    :func:`chain_svg`."""
    items = slot["items"]
    left, top = 16, 80
    pos = _box_positions(len(items), top, left)
    width = left * 2 + PER_ROW * BOX_W + (PER_ROW - 1) * GAP
    height = top + max(1, (len(items) + PER_ROW - 1) // PER_ROW) * (BOX_H + GAP) + 10
    palette: dict[int, int] = {}
    for it in items:
        palette.setdefault(it["key_hash"], len(palette))
    parts = [el("g", {"class": "slotcell", "data-slot": slot["slot"], "data-value": slot["slot_value"]},
                el("rect", {"x": left, "y": 10, "width": 160, "height": 34, "class": "slot-cur"}),
                _text(left + 8, 32, f"slot [{slot['slot']}] = {slot['slot_value']}", "box-title")),
             _text(left + 180, 32, f"byte {slot['slot_position']} of the file; stop: {_clip(slot['stop_reason'], 60)}",
                   "box-line")]
    if items:
        fx, fy = pos[0]
        parts.append(el("path", {"d": f"M {left + 80} 44 L {left + 80} 60 L {fx + BOX_W / 2} 60 L {fx + BOX_W / 2} {fy}",
                                 "class": "link", "marker-end": "url(#arrow)"}))
    for i in range(len(items) - 1):
        parts.append(_connector(pos[i], pos[i + 1], "prev", f"prev {items[i]['prev_index']}"))
    for it, (x, y) in zip(items, pos, strict=True):
        shared = sum(1 for o in items if o["key_hash"] == it["key_hash"]) > 1
        href, note = _item_target(it, link, bytes_link)
        lines = [("item", str(it["item"])), ("hash", str(it["key_hash"])), ("offset", str(it["phy_offset"])),
                 ("", short_time(it["time"])), ("prev →", str(it["prev_index"])),
                 ("", (DANGLING_MARK if href else GONE_MARK) if note else "hash shared in this chain" if shared else "")]
        parts.append(_item_box(x, y, lines, f"item hash-{palette[it['key_hash']] % 8}" + (" dangling" if note else ""),
                               href, {"item": it["item"], "hash": it["key_hash"], "offset": it["phy_offset"],
                                      "dangling": "1" if note else None}, note=note))
    return _svg(width, height, "chain slot", f"Chain of slot {slot['slot']} in {slot['file']}", *parts,
                items=len(items))


def heat_strip(occupancy: list[float], slot_count: int, link: Callable[[int], str], current: int | None = None) -> Markup:
    """A strip of ``len(occupancy)`` cells, each the share of non-empty slots in its run of the slot table
    (darker = fuller); each cell is ``rect.heat`` with ``data-first-slot`` and links to its first slot."""
    n = len(occupancy)
    cell = max(3, min(12, 900 // max(n, 1)))
    width, height = n * cell + 2, 34
    parts = []
    for i, share in enumerate(occupancy):
        first = i * slot_count // n
        last = max(first, (i + 1) * slot_count // n - 1)
        level = min(9, int(share * 10))
        cls = f"heat h{level}" + (" here" if current is not None and first <= current <= last else "")
        rect = _heat_cell(1 + i * cell, cell, cls, first, last, share)
        # one tab stop for the strip (its current cell, else its first), not one per cell: the slot form beside it
        # reaches any slot by keyboard
        stop = first <= current <= last if current is not None else i == 0
        parts.append(el("a", {"href": link(first), "tabindex": None if stop else -1}, rect))
    parts.append(_text(1, height - 1, "slot 0", "axis"))
    parts.append(_text(width - 1, height - 1, f"slot {slot_count - 1}", "axis", **{"text-anchor": "end"}))
    return _svg(width, height, "heat", "Slot occupancy", *parts, bins=n)


@functools.lru_cache(maxsize=8192)
def _heat_cell(x: int, cell: int, cls: str, first: int, last: int, share: float) -> Markup:
    """One cell of a heat strip: the same on every slot page of an index file but the one marked ``here`` (each
    slot page draws the file's whole strip: 128 cells built once, not once a page)."""
    return el("rect", {"x": x, "y": 1, "width": cell, "height": 24, "class": cls, "data-first-slot": first,
                       "data-share": round(share, 3)}, el("title", None, f"slots {first}..{last}: {share:.0%} used"))


def teach_svg(data: dict) -> Markup:
    """The teaching index at one step: ``g.slot`` cells (``data-slot``, ``data-value``; class ``changed`` on
    the slot this step wrote), ``g.item`` boxes (``data-item``, ``data-prev``; ``new`` on the inserted one),
    arrows from slots to their newest item and from each item to its prev, and the lookup walk
    (``visited``/``match`` classes, ``data-visit`` order)."""
    state = data["state"]
    slots: list[int] = state["slots"]
    items: list[dict] = state["items"]
    n_slots = len(slots)
    per_row = min(n_slots, 32)
    cw, ch = 30, 34
    rows = (n_slots + per_row - 1) // per_row
    slot_top = 24
    items_top = slot_top + rows * (ch + 16) + 70
    iw, ih, igap = 76, 52, 24
    width = max(per_row * cw + 40, len(items) * (iw + igap) + 40, 400)
    height = items_top + ih + 34 + min(len(items), 12) * 8
    visited = {n: i for i, n in enumerate(data["lookup"]["visited"])}
    matches = set(data["lookup"]["matches"])

    def slot_xy(s: int) -> tuple[int, int]:
        return 20 + (s % per_row) * cw, slot_top + (s // per_row) * (ch + 16)

    def item_x(number: int) -> int:
        return 20 + (number - 1) * (iw + igap)

    parts: list[Markup] = [_text(20, 14, f"slot table ({n_slots} slots)", "axis"),
                           _text(20, items_top - 10, "items (indexCount = " + str(state["index_count"]) + ")", "axis")]
    for s, value in enumerate(slots):
        x, y = slot_xy(s)
        cls = "slot" + (" used" if value else "") + (" changed" if s == state["slot"] else "") + (
            " lookup" if s == data["lookup"]["slot"] and data["lookup"]["visited"] else "")
        parts.append(el("g", {"class": cls, "data-slot": s, "data-value": value},
                        el("rect", {"x": x, "y": y, "width": cw - 2, "height": ch, "class": "cell"}),
                        _text(x + cw / 2 - 1, y + 13, s, "slot-no", **{"text-anchor": "middle"}),
                        _text(x + cw / 2 - 1, y + 29, value, "slot-val", **{"text-anchor": "middle"})))
    for s, value in enumerate(slots):
        if value:
            x, y = slot_xy(s)
            tx = item_x(value) + iw / 2
            cls = "slotlink" + (" new" if s == state["slot"] else "")
            parts.append(el("path", {"d": f"M {x + cw / 2 - 1} {y + ch} C {x + cw / 2} {items_top - 30}, {tx} {y + ch + 30}, "
                                          f"{tx} {items_top}", "class": cls, "marker-end": "url(#arrow)"}))
    for it in items:
        x = item_x(it["item"])
        cls = "item" + (" new" if it["item"] == state["number"] else "")
        if it["item"] in visited:
            cls += " visited" + (" match" if it["item"] in matches else "")
        attrs = {"item": it["item"], "hash": it["key_hash"], "prev": it["prev_index"]}
        if it["item"] in visited:
            attrs["visit"] = visited[it["item"]] + 1
        parts.append(el("g", {"class": cls, **{f"data-{k}": v for k, v in attrs.items()}},
                        el("rect", {"x": x, "y": items_top, "width": iw, "height": ih, "rx": 5, "class": "box"}),
                        _text(x + 6, items_top + 15, f"item {it['item']}", "box-title"),
                        _text(x + 6, items_top + 30, f"hash {it['key_hash']}", "box-line"),
                        _text(x + 6, items_top + 45, f"prev {it['prev_index']}", "box-line")))
    for k, it in enumerate(items):
        if it["prev_index"]:
            a, b = item_x(it["item"]) + iw / 2, item_x(it["prev_index"]) + iw / 2
            depth = items_top + ih + 14 + (k % 12) * 8
            cls = "prevlink" + (" new" if it["item"] == state["number"] else "")
            parts.append(el("path", {"d": f"M {a} {items_top + ih} C {a} {depth + 10}, {b} {depth + 10}, {b} {items_top + ih}",
                                     "class": cls, "marker-end": "url(#arrow)"}))
    return _svg(width, height, "teach", f"Index after {state['number']} insert(s)", *parts, step=data["step"])


def legend(kinds: Iterable[str]) -> Markup:
    """Small coloured key for the chain drawing."""
    return Markup("").join(el("span", {"class": f"legend kind-{k}"}, KIND_MARK[k]) for k in kinds)


BAR_CHART_H, BAR_LABEL_H = 120, 34
MAX_BARS = 400  # a longer series is summed into this many bars (a picture, not a table: the API has every bucket)


def bars_svg(rows: list[tuple[str, int]], label: str, cls: str) -> Markup:
    """A bar chart of (label, count) rows: one ``rect.bar`` per row (``data-count`` its count, a ``title`` with
    label and count), the first and last labels under the axis. Rows beyond MAX_BARS are summed in runs
    (``data-summed`` says how many rows a bar holds)."""
    step = -(-len(rows) // MAX_BARS) if rows else 1
    if step > 1:
        rows = [(rows[i][0], sum(n for _, n in rows[i:i + step])) for i in range(0, len(rows), step)]
    width = max(200, min(960, 24 * len(rows) + 20))
    bar_w = (width - 20) / max(1, len(rows))
    top = max((n for _, n in rows), default=0) or 1
    bars = []
    for i, (name, n) in enumerate(rows):
        h = round(BAR_CHART_H * n / top, 1)
        x = round(10 + i * bar_w, 1)
        bars.append(el("rect", {"x": x, "y": round(BAR_CHART_H - h + 4, 1), "width": round(max(1.0, bar_w - 2), 1),
                                "height": h, "class": "bar", "data-count": n}, el("title", None, f"{name}: {n:,}")))
    labels = []
    if rows:
        labels.append(_text(10, BAR_CHART_H + 20, _clip(rows[0][0], 24), "axis"))
        if len(rows) > 1:
            labels.append(_text(width - 10, BAR_CHART_H + 20, _clip(rows[-1][0], 24), "axis", **{"text-anchor": "end"}))
    labels.append(_text(width - 10, 14, f"peak {top:,}", "axis", **{"text-anchor": "end"}))
    return _svg(width, BAR_CHART_H + BAR_LABEL_H, f"bars {cls}", label, *bars, *labels, summed=step,
                bars=len(rows))
