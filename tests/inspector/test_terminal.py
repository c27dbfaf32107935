"""The console every command line prints through: store text escaped where it is formatted (``plain``, ``esc``),
markup off unless a line of ours asks for it, and the net that escapes what a view forgot."""

from __future__ import annotations

import io

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from inspector.terminal import SafeConsole, esc, plain

ATTACK = "\x1b]0;PWNED\x07\x1b[2J"


def printed(*renderables, **kw) -> str:
    out = io.StringIO()
    SafeConsole(file=out, width=100).print(*renderables, **kw)
    return out.getvalue()


def test_plain_shows_every_control_escaped():
    assert plain(ATTACK) == "\\x1b]0;PWNED\\x07\\x1b[2J"
    assert plain("a\u202eb\x85c\x7f") == "a\\u202eb\\x85c\\x7f"
    assert plain("line\nnext\tcol") == "line\\nnext\\tcol"
    assert plain("line\nnext\tcol\r", multiline=True) == "line\nnext\tcol\\r"
    assert plain(42) == "42"


def test_a_bel_is_shown_not_dropped():
    # Rich's Text drops BEL, BS, VT, FF and CR on its own: escaped before Rich sees it, it stays visible
    assert "\\x07" in printed(plain("ring\x07"))
    assert "\\x07" in printed(Text(plain("ring\x07")))


def test_markup_in_store_text_is_printed_literally():
    store = "[bold]x[/bold] [link=file:///etc/passwd]y[/link] :skull:"
    assert printed(store).strip() == store  # a plain string: markup off by default
    table = Table()
    table.add_column(store)
    table.add_row(store)
    assert printed(table).count("[link=file:///etc/passwd]y[/link]") == 2
    # a line of ours with markup on: the store text inside goes through esc
    assert printed(f"[red]{esc(store)}[/]", markup=True).strip() == store
    assert Text.from_markup(f"[red]{esc(store)}[/]", emoji=False).plain == store
    assert printed(Panel("body", title=esc("[bold]t"))).count("[bold]t") == 1


def test_esc_escapes_controls_then_brackets():
    assert Text.from_markup(esc("[b]\x1b")).plain == "[b]\\x1b"
    assert Text.from_markup(f"[dim]{esc('ends in a backslash' + chr(92))}[/]").plain == "ends in a backslash\\"


def test_the_net_escapes_what_a_view_forgot():
    out = printed(Text("forgot " + ATTACK, style="red"))
    assert "\x1b]0" not in out and "\\x1b]0;PWNED" in out


def test_a_table_sized_on_escaped_text_keeps_its_borders_straight():
    table = Table()
    table.add_column("key")
    table.add_row(plain("k\x1b[2Jx"))
    table.add_row("plain")
    widths = {len(line) for line in printed(table).splitlines()}
    assert len(widths) == 1
