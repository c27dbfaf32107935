"""A store whose every producer-chosen string tries to take the terminal over (issue 27) or to be read as Textual
or Rich markup, and whose folder and file names do the same (issue 35); and what the tests read off the screen.

A module, not conftest: pytest keeps one "conftest" in sys.modules.
"""

from __future__ import annotations

from pathlib import Path

from inspector.engine import has_terminal_controls
from inspector.engine.maintain.write.dledger_log import DLedgerOptions
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

T0 = 1_758_272_400_000
BODY = "\u001b[31mRED\u001b]0;PWNED\u0007 body [bold]b[/bold] [@click=app.quit]q[/] [link=file:///etc/passwd]z[/]"
KEY = "k\u001b[2Jx"
TAG = "t\u001b[1m"
TOPIC = "Evil"
TOPIC_DIR = "T\u001b]0;PWNED\u0007\u001b[2J"  # issue 35: a topic folder named with controls
MARKUP = ("[bold]x[/bold]", "[@click=app.quit]y[/]", "[link=file:///etc/passwd]z[/]")
MARKUP_TOPIC = "[bold]M[@click=app.quit]"  # a folder name: no slash
PROPS = {"p\u001b[2J": "v\u0007\u202eRTL", "m[bold]": "[@click=app.quit]y[/]", "del": "a\u007fb\u0085c"}
QUEUE_DIR = "q\u001b[2J"  # a stray folder in a topic's consume queue: a problem and the census name it
INDEX_JUNK = "junk\u001b]0;PWNED\u0007"  # a stray file in index/
MEMBER = "dledger-n\u001b]0;PWNED\u0007"  # issue 35: a DLedger member folder named with controls

# what must be on screen instead: Python's spelling of each control
ESCAPED_KEY = "k\\x1b[2Jx"
ESCAPED_TAG = "t\\x1b[1m"
ESCAPED_TOPIC_DIR = "T\\x1b]0;PWNED\\x07\\x1b[2J"
ESCAPED_BODY = "\\x1b[31mRED\\x1b]0;PWNED\\x07"


def write_hostile_store(root: Path) -> dict:
    """The issue's message (body, key, tag) with markup in its keys and properties, a message in a topic whose
    folder is named with controls (also a pending 5.x timer, so the timer wheel lists that topic), one in a topic
    named as markup, a stray queue folder and a stray index file."""
    geometry = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    with StoreWriter(root, geometry, timer_file_size=52 * 20 + 16, timer_now=T0 + 2000,
                     consumer_offsets={(TOPIC, "g\u001b[2J[bold]G"): {0: 0}}) as w:
        evil = w.append(MessageSpec(TOPIC, BODY.encode(), keys=[KEY, *MARKUP], tags=TAG, properties=dict(PROPS),
                                    store_timestamp=T0))
        folder = w.append(MessageSpec(TOPIC_DIR, b"{\"k\": \"\\u001b[2J\\u202e\"}", keys=[KEY], tags=TAG,
                                      store_timestamp=T0 + 500))
        markup = w.append(MessageSpec(MARKUP_TOPIC, b"\xff\xfe not UTF-8 \x1b[2J", keys=list(MARKUP),
                                      tags="[bold]T[/bold]", store_timestamp=T0 + 1000))
        timer = w.append(MessageSpec(TOPIC_DIR, b"later", keys=[KEY], deliver_ms=T0 + 600_000, store_timestamp=T0 + 1500))
    (root / "consumequeue" / TOPIC / QUEUE_DIR).mkdir()
    (root / "index" / INDEX_JUNK).write_bytes(b"x" * 10)
    return {"evil": evil, "folder": folder, "markup": markup, "timer": timer}


def write_hostile_dledger_store(root: Path) -> None:
    """A DLedger store whose member folder is named with controls (renamed after writing: the writer takes ids
    like n0 only, a broker's folder can be named anything)."""
    geometry = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    with StoreWriter(root, geometry, dledger=DLedgerOptions(self_id="n0")) as w:
        w.append(MessageSpec(TOPIC_DIR, b"x", keys=[KEY], store_timestamp=T0))
    (root / "dledger-n0").rename(root / MEMBER)


def painted(app) -> str:
    """The screen as a terminal is sent it (every line of the active screen, toasts included), after asserting
    that no segment of text carries a control character; Textual's own cursor moves are control segments."""
    strips = app.screen._compositor.render_strips()  # noqa: SLF001 - what Textual writes to the terminal
    raw = [seg.text for strip in strips for seg in strip if not seg.control and has_terminal_controls(seg.text)]
    assert raw == [], f"control characters reach the terminal: {raw!r}"
    return "\n".join(strip.text for strip in strips)
