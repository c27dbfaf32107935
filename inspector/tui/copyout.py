"""Copy out of the terminal UI (issue 33): a message's ids, offset, keys and body, and every screen's equivalent
``rmq-inspect … --json`` command line, so a finding becomes a script or a ticket.

A screen says what it shows as a ``Command`` (the subcommand and the arguments after the store); ``Launch`` holds
how the UI was started (the store as typed, the engine options, ``--utc``) and turns a Command into one line,
every argument through ``shlex.quote`` (a topic with spaces or ``$(...)`` stays one inert argument).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from inspector.engine import Message, StoreError, decompress_body

CLIPBOARD_LIMIT = 1 << 20  # OSC 52 carries the text base64-encoded in one escape: terminals and tmux drop huge ones

# the options of the store-opening group that decode-id also takes (it has no geometry flags)
DECODE_ID_OPTIONS = ("--broker-config", "--dledger-member")


@dataclass(frozen=True)
class Command:
    """One CLI command a screen is equivalent to: ``rmq-inspect SUB STORE ARGS… --json``; ``note`` says what of
    the screen the command does not carry (a partial answer says so)."""

    sub: str
    args: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Launch:
    """How the UI was started: the store argument as given, the store-opening options as (flag, value) pairs
    (``--broker-config``, ``--delay-levels``, geometry, ``--dledger-member``) and the global ``--utc``."""

    store: str
    options: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    utc: bool = False

    def argv(self, command: Command) -> list[str]:
        """The command's argv (``rmq-inspect`` first)."""
        head = ["rmq-inspect", *(["--utc"] if self.utc else [])]
        if command.sub == "decode-id":  # the store is an option there, and geometry is not taken
            options = [x for flag, value in self.options if flag in DECODE_ID_OPTIONS for x in (flag, value)]
            return [*head, command.sub, *command.args, "--store", self.store, *options, "--json"]
        options = [x for pair in self.options for x in pair]
        return [*head, command.sub, self.store, *command.args, *options, "--json"]

    def line(self, command: Command) -> str:
        return shlex.join(self.argv(command))


@dataclass(frozen=True)
class Yank:
    """One thing the yank menu copies: its key, what it is, and its text (None: the message has none)."""

    key: str
    what: str
    text: str | None


def message_yanks(msg: Message) -> list[Yank]:
    """What ``y`` offers on a message: msgId, UNIQ_KEY, physical offset, keys and the body (as text: decompressed,
    UTF-8 with replacement characters; a body past CLIPBOARD_LIMIT is offered to save instead)."""
    return [
        Yank("i", "msgId", msg.msg_id or None),
        Yank("u", "UNIQ_KEY", msg.unique_key or None),
        Yank("o", "physical offset", str(msg.physical_offset)),
        Yank("k", "keys", " ".join(msg.keys) or None),
        Yank("b", "body", body_text(msg)),
    ]


def body_text(msg: Message) -> str | None:
    """The body as text for the clipboard (None: empty, too big, or its compression cannot be undone)."""
    try:
        data = decompress_body(msg)
    except StoreError:
        return None
    if not data or len(data) > CLIPBOARD_LIMIT:
        return None
    return data.decode("utf-8", "replace")


def why_not(yank: Yank, msg: Message) -> str:
    """Why ``yank`` has no text on ``msg`` (for the toast)."""
    if yank.key != "b":
        return f"this message has no {yank.what}"
    if not msg.body:
        return "this message's body is empty"
    try:
        size = len(decompress_body(msg))
    except StoreError as e:
        return f"the body cannot be decompressed ({e}); w saves it as stored"
    return f"the body is {size:,} bytes, too big for the clipboard; w saves it to a file"
