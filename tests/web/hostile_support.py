"""A store whose every store-controlled string is an HTML/JS/template payload, for the XSS tests in Chromium.

Each payload, if it ever became markup, would create an element carrying ``data-pwn`` and/or set
``window.__pwned`` (or pop a dialog). No payload holds a space: KEYS is split on spaces, and a payload must
survive as one string to be found again on the page.
"""

from __future__ import annotations

import json
from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

SCRIPT = '<script>window.__pwned="script"</script>'
IMG = '"><img/src=x/data-pwn=img/onerror=window.__pwned="img">'
SVG = "'><svg/data-pwn=svg/onload=window.__pwned=\"svg\">"
CLOSE = '</script><script>window.__pwned="close"</script>'
JS_URL = 'javascript:window.__pwned="url"'
ANCHOR = '<a/data-pwn=a/href=javascript:alert("a")>x</a>'
TEMPLATE = "{{7*7}}{%raw%}${7*7}"
IFRAME = '<iframe/data-pwn=iframe/srcdoc="<script>parent.__pwned=1</script>">'
PAYLOADS = (SCRIPT, IMG, SVG, CLOSE, JS_URL, ANCHOR, TEMPLATE, IFRAME)

TOPIC = 'T"><svg data-pwn=topic onload=window.__pwned="topic">{{7*7}}'  # a directory name: no slash
GROUP = '<img/src=x/data-pwn=group/onerror=window.__pwned="group">'
TAGS = '<b/data-pwn=tags/onmouseover=window.__pwned="tags">tag</b>'
UNIQ = '<script>window.__pwned="uniq"</script>'
PROPS = {f"k{i}{p}": p for i, p in enumerate(PAYLOADS)}  # payloads as property names and as values
BODY = json.dumps({"html": SCRIPT, "close": CLOSE, "img": IMG, "tpl": TEMPLATE, "url": JS_URL}).encode()


def write_rich_hostile_store(root: Path) -> dict:
    """Two hostile messages (one with a JSON body, one with a binary-ish body) and a plain one."""
    t0 = 1_758_272_400_000
    geometry = Geometry(segment_size=8192, cq_file_size=200, index_slots=16, index_items=64)
    with StoreWriter(root, geometry, consumer_offsets={(TOPIC, GROUP): {0: 0}, ("Plain", GROUP): {0: 1}}) as w:
        evil = w.append(MessageSpec(topic=TOPIC, body=BODY, keys=[SCRIPT, IMG, SVG, JS_URL, TEMPLATE], tags=TAGS,
                                    properties=PROPS, unique_key=UNIQ, store_timestamp=t0))
        evil2 = w.append(MessageSpec(topic=TOPIC, body=(CLOSE + ANCHOR + IFRAME).encode() + b"\x00\xff",
                                     keys=[CLOSE, ANCHOR], store_timestamp=t0 + 500))
        plain = w.append(MessageSpec(topic="Plain", body=b'{"ok": true}', keys=["k1"], store_timestamp=t0 + 1000))
    return {"evil": evil.physical_offset, "evil2": evil2.physical_offset, "plain": plain.physical_offset,
            "evil_msg_id": evil.msg_id, "keys": [SCRIPT, IMG, SVG, JS_URL, TEMPLATE, CLOSE, ANCHOR, UNIQ]}
