"""The copy-out dialogs: ``y``'s menu on a message (what to copy, or save the body), and the yes/no question
asked before a saved body replaces a file."""

from __future__ import annotations

import os

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from inspector.engine import Message
from inspector.tui.copyout import Yank
from inspector.tui.fmt import clip, esc, plain

SAVE_KEY = "w"
COMMAND_KEY = "c"


def menu_text(yanks: list[Yank], has_command: bool) -> Text:
    t = Text()
    for y in yanks:
        t.append(f" {y.key}  ", style="bold yellow")
        t.append(f"{y.what:<16}")
        # the value previewed cut to one line: the store's text, escaped (never markup)
        shown = "-" if y.text is None else clip(esc(y.text.splitlines()[0] if y.text.strip() else y.text), 40)
        t.append(shown + "\n", style="dim")
    t.append(f" {SAVE_KEY}  ", style="bold yellow")
    t.append("save the body to a file (bytes as stored)\n")
    if has_command:
        t.append(f" {COMMAND_KEY}  ", style="bold yellow")
        t.append("this message as a command (rmq-inspect show … --json)\n")
    t.append(" escape closes", style="dim")
    return t


class YankScreen(ModalScreen[str | None]):
    """``y`` on a message: dismissed with the key pressed (a value's, ``w`` or ``c``), or None. The caller acts
    on it in its callback: a dialog pushed from here before the pop would be answered to this gone screen."""

    BINDINGS = [Binding("escape,q,y", "close", "Close")]

    def __init__(self, msg: Message, yanks: list[Yank], has_command: bool = True) -> None:
        super().__init__()
        self.msg = msg
        self.yanks = yanks
        self.keys = {y.key for y in yanks} | {SAVE_KEY} | ({COMMAND_KEY} if has_command else set())

    def compose(self) -> ComposeResult:
        with Vertical(id="yank-box"):
            yield Label(f"Copy from the message at {self.msg.physical_offset:,}", id="yank-title")
            yield Static(menu_text(self.yanks, COMMAND_KEY in self.keys), id="yank-menu")

    def on_key(self, event: events.Key) -> None:
        if event.key in self.keys:
            event.stop()
            self.dismiss(event.key)

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question (y: yes; n or escape: no)."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Label(plain(self.question), id="prompt-title")
            yield Label(Text("y: yes   n / escape: no", style="dim"))

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def refuse_path(path: str, store_root: str) -> str | None:
    """Why the body may not be written at ``path`` (None: it may): never into the store, never over a folder."""
    real = os.path.realpath(path)
    root = os.path.realpath(store_root)
    if os.path.commonpath([real, root]) == root:
        return f"{path}: inside the store; rmq-inspect never writes into a store"
    if os.path.isdir(real):
        return f"{path}: a directory; give a file name"
    if not os.path.isdir(os.path.dirname(real) or "."):
        return f"{path}: no such directory {os.path.dirname(path) or '.'}"
    return None


def write_body(msg: Message, path: str, replace: bool) -> int:
    """The body's bytes as stored (compressed or not) into ``path``: a new file, or (``replace``, asked first)
    over an existing one. Returns the bytes written; raises OSError (FileExistsError when it exists)."""
    with open(path, "wb" if replace else "xb") as f:  # x: refuses an existing file, or a link to one
        f.write(msg.body)
    return len(msg.body)
