"""Small modal screens: a one-line prompt, the help text, and a window showing one message."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from inspector import version
from inspector.engine import Message, StoreError
from inspector.tui.copyout import Command
from inspector.tui.fmt import plain
from inspector.tui.widgets.messagedetail import MessageDetail


class PromptScreen(ModalScreen[str | None]):
    """Ask for one value; dismisses with the text, or None on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, placeholder: str = "", value: str = "") -> None:
        super().__init__()
        self.prompt_title = title
        self.placeholder = placeholder
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Label(plain(self.prompt_title), id="prompt-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class MessageScreen(ModalScreen[None]):
    """One message in full; ``x`` shows its bytes in the hex view."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("x", "hex", "Show in hex view"),
        Binding("b", "body", "Body text/JSON/hex"),
        Binding("s", "story", "Story"),
        # a modal screen hides the app's bindings: help, quit and copy out are bound here too (`? Help` and `q Quit`
        # in every footer, issue 33: q closed the window, a key no footer or help said)
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
        Binding("y", "app.yank", "Copy", show=False),
        Binding("C", "app.copy_command", "Copy as command", show=False),
    ]

    def __init__(self, offset: int) -> None:
        super().__init__()
        self.phy_offset = offset

    def compose(self) -> ComposeResult:
        with Vertical(id="message-box"):
            yield Label(f"Message at physical offset {self.phy_offset:,}", id="message-title")
            yield MessageDetail(id="message-detail")
        yield Footer()

    def on_mount(self) -> None:
        detail = self.query_one(MessageDetail)
        try:
            detail.show(self.app.store.message_at(self.phy_offset))
        except StoreError as e:
            detail.show(None, f"no message at {self.phy_offset:,}: {e.reason}")
            self.notify(str(e), severity="error")
        detail.focus()

    def current_message(self) -> Message | None:
        return self.query_one(MessageDetail).message

    def command(self) -> Command:
        return Command("show", (str(self.phy_offset),))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_hex(self) -> None:
        offset = self.phy_offset
        self.dismiss(None)
        self.app.show_hex(offset)

    def action_body(self) -> None:
        self.query_one(MessageDetail).cycle_body()

    def action_story(self) -> None:
        offset = self.phy_offset
        self.dismiss(None)
        self.app.show_story(str(offset))


HELP = [
    ("everywhere", [
        ("1 … 8", "overview, hex view, messages, index chain, msgId, problems, guided tour, exercises (or click the tabs)"),
        ("ctrl+p", "command palette: every action by name"),
        ("?  /  f1", "this help"),
        ("q  /  ctrl+q", "quit"),
        ("paste", "msgId screen: into the id field; hex view: opens the jump prompt with it"),
        ("escape", "in a text field: back to the screen's list or view"),
        ("y", "on a message (messages list, message window, msgId result, story record, hex record): copy its "
              "msgId (i), UNIQ_KEY (u), physical offset (o), keys (k) or body (b); w saves the body's bytes as "
              "stored to a file (an existing file only after a yes); c: its `show` command. Copies go through the "
              "terminal (OSC 52: over ssh and tmux too) and a toast says what was copied"),
        ("C", "copy as command: the rmq-inspect … --json line printing what this screen shows (info, verify, "
              "messages --topic …, chain, grep, stats --by, timer, groups/group, story, hex --length …, decode-id), "
              "with the options the UI was started with (--broker-config, --delay-levels, geometry, --utc)"),
        ("R  /  ctrl+r", "reload: open the store again (a running broker's new records, queues and segments); the "
                         "screen is made again on it, keeping its place where it still exists (hex cursor, the "
                         "messages list's filters and row, the overview's node), and a toast says what changed, e.g. "
                         "'reloaded: commitlog +2 records (+238 bytes), 2 queues grew'"),
    ]),
    ("overview", [
        ("enter / click", "open the node: segment → hex, topic/queue/group → messages, index file → slots"),
        ("space", "expand or collapse"),
        ("x", "on a queue (its first consume-queue file) or an index file: the file's hex in the hex view, its "
              "units, header, slots and items named"),
        ("escape", "stop the background walk of the commitlog"),
        ("Files line", "the root's files by kind, and strays; `rmq-inspect census STORE` lists them (with "
                       "--broker-config: the commitlog where storePathCommitLog puts it, e.g. /disk1,/disk2)"),
        ("Broker settings", "each setting the store is read with and its source: broker.conf (line), flag, "
                            "inferred from the store (the delay table, level by level, from SCHEDULE_TOPIC_XXXX) or "
                            "default; space expands it, e.g. 'level  2    2s  inferred'"),
        ("Consumer groups", "lag from where the broker keeps offsets, named on the node: lmqConsumerOffset.json "
                            "(enableLmq), RocksDB config/consumerOffsets/ or config/rdb/, else consumerOffset.json; "
                            "e.g. 'Consumer groups  2 in consumerOffsets' on a storeType=defaultRocksDB store"),
    ]),
    ("hex view", [
        ("arrows pgup pgdn", "move the byte cursor; home/end: segment start/end; long zero runs are folded"),
        (".  ,", "next / previous field"),
        ("n  p", "next / previous message record"),
        ("e", "next problem"),
        ("g", "jump to a physical offset (decimal or 0x), an offset msgId or a unique key"),
        ("]  [", "next / previous segment"),
        ("queue / index file", "(x on the overview, or --file PATH) n p: next / previous unit, slot or item; .  ,: "
                               "field; enter: the commitlog record a unit or item points at; escape: back to the "
                               "commitlog. A torn or short file says so on the status line"),
        ("enter", "open the message under the cursor; click a field in the panel to go to its bytes"),
        ("m  M", "store time +1 / -1 minute in the whole log, from the record under the cursor: the first record "
                 "stored at or after its time + 1 min (back: the last at or before - 1 min); e.g. m on 00:00:20 "
                 "→ '+1 minute: at 2025-09-19 00:01:20.000 +00:00 (moved +1 minute)'"),
        ("o  O", "store time +1 / -1 hour; a gap in the store times is crossed and said, e.g. o on 01:30 → "
                 "'nothing stored for 2 h 30 min past the 1 hour step: went +3 h 30 min, to 2025-09-19 "
                 "05:00:00.000 +00:00'"),
        ("d  D", "store time +1 / -1 day; past an end it stays and says so, e.g. d on the last record → 'no "
                 "record 1 day later: the log ends at 2025-09-19 05:59:40.000 +00:00'"),
    ]),
    ("messages", [
        ("/", "edit the filters: topic, queue, tag, key, store time from/to (enter applies)"),
        ("c", "clear the filters: every message in commitlog order"),
        ("f", "follow mode: the log is polled every half second and each new message matching the filters "
              "(topic, tag, key, time) appears at the bottom, as `messages --follow` prints it; the cursor follows "
              "when it is on the last row; a record still being written waits, it is no error; f again stops (in "
              "commitlog order only: not with a queue or topic+key list)"),
        ("enter / x", "show the selected message in the hex view"),
        ("b", "body as text, pretty JSON or hex (decompressed when compressed)"),
        ("batch CQ", "a 5.x BatchCQ queue (overview: 'batch CQ') lists each inner message of a batch record as "
                     "a row: queue offset base+i, its own keys and body; e.g. topic Direct5BatchCQ, queue 0"),
        ("space", "in commitlog order, on an inner-batch record (keys column '▸ 4 inner'): its inner messages "
                  "as rows under it (└ #i, queue offset base+i, own tags, keys, body); space again folds them"),
        ("%LMQ% queue", "an LMQ queue lists each record at its offset in that queue (INNER_MULTI_QUEUE_OFFSET), "
                        "not its topic's; e.g. topic %LMQ%x, queue 0"),
        ("m M  o O  d D", "store time ±1 minute / hour / day from the selected row, as in the hex view; in a "
                          "queue-filtered list (topic and queue) within that queue, e.g. topic Ticks, queue 1: m "
                          "on 00:00:20 → the queue's record of 00:01:20; in a filtered list, the next matching row"),
        ("escape", "cancel the scan"),
    ]),
    ("index chain", [
        ("/", "edit topic and key; enter or w walks the chain in every index file"),
        ("s  t", "browse a slot of the selected index file / list its busiest slots"),
        ("enter", "open the message of the selected hop (or browse the selected busy slot)"),
    ]),
    ("msgId", [("/", "paste an id; enter resolves it; enter on a reading opens its message")]),
    ("problems", [
        ("enter", "show the selected problem's place in the hex view (a queue unit's or index item's: the log "
                  "offset it points at)"),
        ("v / escape", "run verify (every record and cross-file reference) / cancel it"),
        ("g", "group by cause: each log damage with how many findings point into it (one zeroed page: one row)"),
        ("s", "one severity at a time: errors, warnings, info, then all again"),
    ]),
    ("timer wheel (5.x)", [
        ("9", "the timer store: its non-empty wheel slots, timercheck, pending timers (overview: 'Timer store')"),
        ("enter", "on a slot: walk its chain last_pos → prev_pos …, each hop's unit and record, hops against num; "
                  "on a hop: open its rmq_sys_wheel_timer record"),
        ("s", "walk any slot by number (`rmq-inspect timer STORE --slot N` prints the same chain)"),
    ]),
    ("story of a message", [
        ("s", "on a message (messages, hex view, a message window, msgId): the story screen, every record of "
              "the message in store-time order with its role (original, scheduled, retry, dead letter, half, "
              "commit, trace …), each consumer group consumed or not, what was searched; `rmq-inspect story "
              "STORE REF` prints the same"),
        ("enter / x", "open the selected record / show its bytes in the hex view"),
        ("s (on the story)", "the story of another physical offset, msgId, UNIQ_KEY, or topic and key (ctrl+p: "
                             "'Story: of a message'); e.g. 90151 in sample_store: retried 3 times, then %DLQ%"),
    ]),
    ("consumer groups", [
        ("0", "every consumer group: queues, lag, retry and DLQ counts (`rmq-inspect groups STORE`); enter: its "
              "queues, committed / min / max / lag and the messages either side (`rmq-inspect group STORE G`)"),
        ("enter", "on a queue: the message browser on it, the group's committed offset marked (▶ first pending)"),
    ]),
    ("search the log", [
        ("f", "the search screen (ctrl+p 'Search'; on the Messages screen f follows the log instead): a regex, or "
              "a fixed string with regex unticked, through every body (decompressed), key, tag and property, as "
              "`rmq-inspect grep STORE PATTERN` does; e.g. pattern coupon-\\w+ with ignore case, in keys; topic and "
              "tag narrow it, in takes body,keys,tags,props"),
        ("since  until", "the second row: only messages stored in [since, until), as `grep --since --until`: "
                         "2025-09-19 13:48 (local; UTC under `rmq-inspect --utc tui`), 2025-09-19T13:48Z, epoch "
                         "ms, -2h; every time shown names its zone (+08:00)"),
        ("enter", "in a field: search (hits listed as they come, the match in red); on a hit: open the message"),
        ("→", "in the topic field: take the topic suggested; a topic the store does not know says which it "
              "may mean ('did you mean OrderEvents?')"),
        ("escape", "cancel the search: what was found stays, and the line under the hits says where it stopped"),
        ("r", "after a key search (regex unticked, in keys, no topic), answered by every topic's index for the "
              "exact key: search the whole log for it (a scan)"),
        ("x  s  /", "the hit's bytes in the hex view / its story / back to the pattern"),
    ]),
    ("statistics", [
        ("%", "the log counted by topic (`rmq-inspect stats STORE`): count, bytes, shares, records per hour and the "
              "size histogram as sparklines, what deleting the oldest segments drops and whom it leaves behind"),
        ("b", "the next key: queue, tag, host, producer-group, minute, hour, size (`stats --by KEY`)"),
    ]),
    ("diff of two stores", [
        ("--compare B", "rmq-inspect tui STORE --compare B opens on the Diff screen (also: the command palette): "
                        "what `rmq-inspect diff STORE B` says, a row each: commitlog ranges, records, queues, index "
                        "items, DLedger terms, config fields"),
        ("enter", "on a row with an offset: A's hex view there"),
    ]),
    ("salvage plan", [
        ("--screen salvage", "the Salvage plan screen (also: the command palette): what `rmq-inspect salvage STORE "
                             "--plan` says: each commitlog span intact, recoverable or lost and what salvage does "
                             "to it, the highlighted span's lost records, the other files; verify runs first, in "
                             "the background"),
        ("enter", "on a span: the hex view at its start"),
    ]),
    ("opening a store", [
        ("--goto REF", "rmq-inspect STORE --goto 14,924 (or an offset msgId or UNIQ_KEY): opens with that message's "
                       "window; a REF that finds nothing is the command's one-line error, before the UI starts"),
        ("--screen NAME", "the first screen: overview, hex, messages, chain, ids, problems, tour, exercises, timer, "
                          "story, groups, search, stats, diff, salvage; --key TOPIC KEY: the index chain walking it"),
        ("--broker-config F", "rmq-inspect STORE --broker-config broker.conf: the broker's paths (a commitlog "
                              "elsewhere or split over folders), file sizes, index geometry and delay levels; "
                              "without it the delay levels are inferred from SCHEDULE_TOPIC_XXXX (info says which)"),
        ("DLedger", "a DLedger store (dledger-n0/data, e.g. rmq-inspect sample_store_dledger) reads as one log: "
                    "old commitlog, then entries; offsets are the records' (entry pos + 48); the overview's "
                    "DLedger node lists the term timeline (enter: the term's first entry in the hex view); with "
                    "several members (dledger-n0/, dledger-n1/) rmq-inspect tui STORE --dledger-member n1 reads n1 "
                    "(default: dLegerSelfId, else the first by name; the overview's problems say which)"),
    ]),
]


def help_text() -> Text:
    t = Text()
    t.append(f"rmq-inspect {version()}", style="bold")
    t.append(": a read-only look inside an Apache RocketMQ store. The mouse works too.\n", style="dim")
    for section, keys in HELP:
        t.append(f"\n{section}\n", style="bold underline")
        for key, what in keys:
            t.append(f"  {key:<18}", style="bold yellow")
            t.append(what + "\n")
    return t


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(help_text())
            yield Label(Text("escape closes", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
