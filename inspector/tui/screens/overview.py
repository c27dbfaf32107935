"""Overview: the store as a tree. Selecting a node opens the matching view.

Names in the tree are the store's (topic and member folders, file names, groups, config values): each is
escaped where its label is built (``fmt.esc``), and the tree (a ``SafeTree``) escapes what is left and never
reads a label as markup."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, ProgressBar, Tree
from textual.widgets.tree import TreeNode

from inspector.engine import (
    CheckpointInfo,
    DelayTable,
    IndexFileInfo,
    QueueInfo,
    Segment,
    SegmentScan,
    Setting,
    StoreError,
    census,
    census_summary,
    dledger_view,
    not_a_store,
    preflight,
    segment_size,
    timer_line,
)
from inspector.tui.copyout import Command
from inspector.tui.fmt import esc, middle_clip, num, size, when
from inspector.tui.messages import OverviewLoaded, QueuesListed, ScanProgress
from inspector.tui.widgets.navbar import NavBar
from inspector.tui.widgets.safe import SafeStatic, SafeTree

TOPIC_WIDTH = 60  # characters of a topic in a tree label (cut in the middle): its counts stay on screen


def topic_width(width: int) -> int:
    """A topic's characters in its tree label for a terminal ``width`` columns wide: its counts (up to ~34
    columns) after its indent (10) stay on screen (issue 33: a 200-character topic cut them at 80 columns)."""
    return max(20, min(TOPIC_WIDTH, width - 46))


@dataclass(frozen=True)
class Node:
    """What a tree node stands for (its ``data``)."""

    kind: str  # store, commitlog, segment, topics, topic, queue, group, index, indexfile, checkpoint, files, problems,
    # dledger, term, settings, setting
    value: object = None


@dataclass
class OverviewData:
    segments: list[Segment]
    segment_size: int
    queues: list[QueueInfo]
    lag: list[dict]
    index_files: list[IndexFileInfo]
    checkpoint: CheckpointInfo | None
    checkpoint_error: str | None
    clean_shutdown: bool
    lock_exists: bool
    errors: list[str] = field(default_factory=list)
    queue_ids: list[tuple[str, int]] = field(default_factory=list)
    listed: bool = True  # False: the skeleton (queue ends not read yet)
    census: str | None = None  # census_summary of the root (None in the skeleton: counting)
    census_errors: int = 0  # entries the broker would not start with
    not_a_store: str | None = None  # why the root is no store (the command refuses it; a caller's Store may not)
    offsets_source: str = "config/consumerOffset.json"  # where the lag's offsets come from (the broker's choice)
    timer: str | None = None  # the 5.x timer store in one line (None: there is none, or the skeleton)
    dledger: dict | None = None  # a DLedger store: dledger_view (term timeline, term files); None otherwise
    settings: list[Setting] = field(default_factory=list)  # empty in the skeleton (the delay inference reads units)
    delay: DelayTable | None = None  # each level's source (inferred from SCHEDULE_TOPIC_XXXX, broker.conf, ...)
    # index file -> why it is damaged (the readers' file-level findings: a bad header, a wrong size, a file that
    # could not be opened); such a file's node is drawn in the error colour and Enter explains it
    index_faults: dict[str, list[str]] = field(default_factory=dict)
    next_start: str | None = None  # the engine's preflight banner (None in the skeleton: it walks the log's tail)


def load_overview(store, progress: Callable[[int, int], None] | None = None, *,
                  list_queues: bool = True) -> OverviewData:
    """Everything but the walk of the commitlog (cheap: headers, consume-queue ends, config).

    ``list_queues=False`` gives the skeleton shown at once: the queue ids (known from the directory names)
    without their ends (``queues`` empty, ``listed`` False) and no consumer lag. ``progress(done, total)`` is
    called as the queue ends are read (a store may hold tens of thousands of queues)."""
    errors: list[str] = []
    queues: list[QueueInfo] = []
    plain = store.queue_ids()
    ids = plain + [key for key in store.batch_queue_ids() if key not in set(plain)]  # and 5.x BatchCQ queues
    if list_queues:
        for n, (topic, qid) in enumerate(ids):
            if n % _LIST_STEP == 0:
                if progress is not None:
                    progress(n, len(ids))
                store.prefetch_infos(ids[n : n + _LIST_STEP])  # the next step's ends in one pass (issue 30)
            try:
                queues.append(store.queue_info(topic, qid))
            except StoreError as e:
                errors.append(f"{topic}/{qid}: {e}")
        lag = []
        try:
            lag = store.consumer_lag()
        except StoreError as e:
            errors.append(f"consumer offsets: {e}")
        offsets_source = store.consumer_offsets().source
    else:
        lag, offsets_source = [], "config/consumerOffset.json"
    index_files = [r.info() for r in store.index_files()]
    index_faults: dict[str, list[str]] = {}
    for p in store.index_problems():
        if p.severity == "error":
            index_faults.setdefault(p.file, []).append(p.reason)
    try:
        checkpoint, cp_error = store.checkpoint(), None
    except StoreError as e:
        checkpoint, cp_error = None, str(e)
    found = census(store.root, store.broker_config) if list_queues else None  # 16,000 queue folders: a fraction of a second, not first
    settings: list[Setting] = []
    delay = None
    if list_queues:  # the delay inference reads a few SCHEDULE_TOPIC_XXXX units: not in the skeleton
        try:
            settings, delay = store.settings(), store.delay_table()
        except StoreError as e:
            errors.append(f"broker settings: {e}")
    next_start = None
    if list_queues:  # walks up to three segments (normal recovery): in the background load, not the skeleton
        try:
            next_start = preflight(store).banner
        except StoreError as e:
            next_start = f"next start: not known ({e})"
    data = OverviewData(list(store.segments), segment_size(store), queues, lag, index_files, checkpoint,
                        cp_error, store.clean_shutdown, store.lock_exists, errors, ids, list_queues,
                        census_summary(found) if found is not None else None, len(found.errors) if found is not None else 0,
                        not_a_store(store.root), offsets_source, timer_line(store) if list_queues else None,
                        dledger_view(store) if list_queues else None, settings, delay, index_faults)
    data.next_start = next_start
    return data


_LIST_STEP = 500  # queues between two progress reports of the listing
# a setting's source: inferred is a guess from the store's files (yellow), the others were given or are the broker's
_SOURCE_STYLE = {"broker.conf": "green", "flag": "green", "inferred": "yellow", "default": "dim"}


def segment_label(seg: Segment, scan: SegmentScan | None, complete: bool = True, segment_size: int = 0) -> Text:
    t = Text()
    t.append(esc(seg.name), style="bold")
    # what matters first, the BLANK's detail last: 80 columns cut the label's end (issue 33)
    if scan is not None and scan.problems:
        t.append(f"  {len(scan.problems)} problem(s)", style="bold red")
    if scan is not None and not scan.preallocated:
        t.append(f"  {num(scan.messages)} msgs")
        if not complete:
            t.append("  (walk stopped)", style="yellow")
    t.append(f"  start {num(seg.start_offset)}")
    if seg.file_size != segment_size:
        t.append(f"  {size(seg.file_size)}", style="yellow")
    if scan is None:
        t.append("  walking…", style="dim italic")
        return t
    if scan.preallocated:
        t.append("  preallocated (all zero)", style="dim")
        return t
    t.append(f"  valid end {num(scan.valid_end_offset)}")
    if scan.messages:
        t.append(f"  {when(scan.first_store_timestamp)[11:19]}–{when(scan.last_store_timestamp)[11:19]}", style="dim")
    if scan.blank_position is not None:
        t.append(f"  BLANK {num(scan.blank_size)} B @ {num(scan.blank_position)}", style="magenta")
    else:
        t.append("  no BLANK (zero tail)", style="dim")
    return t


def _walk(node: TreeNode):
    yield node
    for child in node.children:
        yield from _walk(child)


class StoreTree(SafeTree):
    """The overview tree: enter opens the node's view, space expands it."""

    BINDINGS = [Binding("enter", "select_cursor", "Open"), Binding("space", "toggle_node", "Expand")]


class OverviewScreen(Screen):
    BINDINGS = [
        Binding("escape", "stop_walk", "Stop walk"),
        Binding("x", "file_hex", "Hex of file", show=False),  # a queue or index node: its file's bytes, named
        Binding("question_mark", "app.help", "Help"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.data: OverviewData | None = None
        self._segment_nodes: dict[int, TreeNode] = {}
        self._commitlog_node: TreeNode | None = None
        self._problems_node: TreeNode | None = None
        self._topics_node: TreeNode | None = None
        # queue nodes of a topic are added when it is expanded: thousands of queues would be thousands of nodes
        self._pending_queues: dict[str, list[QueueInfo]] = {}
        self._lag_by_queue: dict[tuple[str, int], list[dict]] = {}
        self._restored: tuple[Node | None, set] = (None, set())  # a reload's place: cursor node, expanded topics
        self._topic_width = TOPIC_WIDTH
        self._topic_tails: dict[str, Text] = {}  # each topic's label after its name (its counts)

    def compose(self) -> ComposeResult:
        yield Header()
        yield NavBar("overview")
        tree: Tree[Node] = StoreTree(esc(self.app.store_name), data=Node("store"), id="overview-tree")
        tree.show_root = True
        tree.auto_expand = False
        yield tree
        with Horizontal(id="overview-status"):
            yield SafeStatic("loading…", id="overview-walk")
            yield ProgressBar(total=100, show_eta=False, id="overview-progress")
        yield Footer()

    def command(self) -> Command:
        return Command("info")

    def place(self) -> tuple[Node | None, set]:
        """The node under the cursor and the topics expanded (a reload shows them again where they still are)."""
        tree = self.query_one(Tree)
        expanded = {n.data.value for n in self._topic_nodes() if n.is_expanded}
        return (tree.cursor_node.data if tree.cursor_node is not None else None), expanded

    def restore(self, place: tuple[Node | None, set]) -> None:
        self._restored = place

    def on_mount(self) -> None:
        self.query_one(Tree).root.expand()
        self.query_one(Tree).focus()
        self._load()

    @work(thread=True, group="overview-load", exit_on_error=False)
    def _load(self) -> None:
        # the skeleton first (names only, no file read per queue), then the queue ends with a counter
        try:
            self.post_message(OverviewLoaded(load_overview(self.app.store, list_queues=False)))
            data = load_overview(self.app.store, lambda done, total: self.post_message(QueuesListed(done, total)))
        except Exception as e:  # noqa: BLE001 - keep the app alive, say what failed
            self.app.call_from_thread(self.notify, f"overview: {e}", severity="error")
            return
        self.post_message(OverviewLoaded(data))

    def on_overview_loaded(self, message: OverviewLoaded) -> None:
        if self.data is not None and self.data.listed and not message.data.listed:
            return  # a late skeleton: the full tree is already there
        self.data = message.data
        self._build(message.data)

    def on_queues_listed(self, message: QueuesListed) -> None:
        if self._topics_node is not None and self.data is not None and not self.data.listed:
            self._topics_node.set_label(self._topics_label(self.data, message.done))

    # -- the tree ---------------------------------------------------------------------------------------------

    def _build(self, d: OverviewData) -> None:
        app = self.app
        tree = self.query_one(Tree)
        root = tree.root
        # a rebuild (skeleton, then the listed queues) keeps what the user opened and where the cursor was
        expanded = {n.data.value for n in self._topic_nodes() if n.is_expanded} | self._restored[1]
        cursor = tree.cursor_node.data if tree.cursor_node is not None else None
        if cursor in (None, Node("store")):
            cursor = self._restored[0]
        root.remove_children()
        shutdown = Text()
        shutdown.append(esc(app.store_name), style="bold")
        # the shutdown state in two words, then the next start's verdict, then the why: 80 columns cut the end
        shutdown.append("  last shutdown: ")
        shutdown.append("clean" if d.clean_shutdown else "not clean", style="green" if d.clean_shutdown else "bold yellow")
        bad_start = d.next_start is not None and not d.next_start.endswith("nothing lost")
        if d.next_start is not None:
            shutdown.append("  " if bad_start else "  · ")
            shutdown.append(esc(d.next_start), style="bold red" if bad_start else "green")
        shutdown.append("  · no abort file" if d.clean_shutdown else "  · broker running or crashed (abort file present)",
                        style="dim" if d.clean_shutdown else "yellow")
        if d.lock_exists:
            shutdown.append("  · lock file present", style="dim")
        root.set_label(shutdown)

        cl = root.add(self._commitlog_label(d), data=Node("commitlog"), expand=True)
        self._commitlog_node = cl
        for i, seg in enumerate(d.segments):
            self._segment_nodes[i] = cl.add_leaf(segment_label(seg, app.scans.get(i), segment_size=d.segment_size), data=Node("segment", i))

        by_topic: dict[str, list[QueueInfo]] = defaultdict(list)
        for q in d.queues:
            by_topic[q.topic].append(q)
        queue_count: dict[str, int] = defaultdict(int)
        for topic, _ in d.queue_ids:
            queue_count[topic] += 1
        lag_by_queue: dict[tuple[str, int], list[dict]] = defaultdict(list)
        for row in d.lag:
            lag_by_queue[(row["topic"], row["queue_id"])].append(row)
        self._lag_by_queue = lag_by_queue
        self._pending_queues = {}
        topics = root.add(self._topics_label(d), data=Node("topics"), expand=True)
        self._topics_node = topics
        lag_of: dict[str, int] = dict.fromkeys(by_topic, 0)
        for r in d.lag:
            if r["topic"] in lag_of:
                lag_of[r["topic"]] += r["lag"] or 0
        most_lagging = max(lag_of, key=lambda t: (lag_of[t], t)) if any(lag_of.values()) else None
        self._topic_width = topic_width(self.app.size.width)
        self._topic_tails = {}
        for topic in sorted(queue_count if not d.listed else by_topic):
            if not d.listed:
                self._topic_tails[topic] = Text.assemble(f"  {queue_count[topic]} queue(s)", ("  …", "dim"))
                topics.add(self._topic_label(topic), data=Node("topic", topic), expand=False)
                continue
            queues = sorted(by_topic[topic], key=lambda q: q.queue_id)
            total = sum(q.message_count for q in queues)
            lag_total = sum(r["lag"] or 0 for q in queues for r in lag_by_queue.get((topic, q.queue_id), []))
            tail = Text(f"  {len(queues)} queue(s), {num(total)} messages")
            if lag_total:
                tail.append(f"  lag {num(lag_total)}", style="yellow")
            self._topic_tails[topic] = tail
            tnode = topics.add(self._topic_label(topic), data=Node("topic", topic),
                               expand=topic == most_lagging or topic in expanded)
            if lag_total or tnode.is_expanded or any(lag_by_queue.get((topic, q.queue_id)) for q in queues):
                self._add_queue_nodes(tnode, queues)
            else:
                self._pending_queues[topic] = queues

        groups = sorted({r["group"] for r in d.lag})
        if groups:
            where = d.offsets_source.removeprefix("config/")  # e.g. lmqConsumerOffset.json, consumerOffsets (RocksDB)
            gnode = root.add(Text.assemble(("Consumer groups", "bold"), f"  {len(groups)} in {esc(where)}"),
                             data=Node("groups"))
            for g in groups:
                rows = [r for r in d.lag if r["group"] == g]
                lag = sum(r["lag"] or 0 for r in rows)
                topics_of = sorted({r["topic"] for r in rows})
                gnode.add_leaf(Text.assemble((esc(g), "bold"), f"  {esc(', '.join(topics_of))}", f"  lag {num(lag)}"),
                               data=Node("groupsum", g))

        readers = {info.file for info in d.index_files}
        unopened = [f for f in d.index_faults if f not in readers]
        damaged = len(d.index_faults)
        inode = root.add(Text.assemble(("Index files", "bold"), f"  {len(d.index_files) + len(unopened)}",
                                       (f"  {damaged} damaged", "bold red") if damaged else ""),
                         data=Node("index"), expand=True)
        for file in unopened:  # a file no reader could open: still listed, with why
            inode.add_leaf(Text.assemble((esc(file.rsplit("/", 1)[-1]), "bold red"),
                                         (f"  ✗ {esc(d.index_faults[file][0])}", "red")),
                           data=Node("indexfault", file))
        for info in d.index_files:
            h = info.header
            faults = d.index_faults.get(info.file)
            label = Text.assemble((esc(info.name), "bold red" if faults else "bold"),
                                  f"  {when(h.begin_timestamp)} … {when(h.end_timestamp)[11:]}",
                                  f"  used slots {num(h.hash_slot_count)}", f"  items {num(h.items_written)}",
                                  (f"  ✗ {esc(faults[0])}", "red") if faults else "")
            kind = "indexfault" if faults else "indexfile"
            fnode = inode.add(label, data=Node(kind, info.file))
            for text in (
                f"beginTimestamp  {when(h.begin_timestamp)}  ({h.begin_timestamp})",
                f"endTimestamp    {when(h.end_timestamp)}  ({h.end_timestamp})",
                f"beginPhyOffset  {num(h.begin_phy_offset)}",
                f"endPhyOffset    {num(h.end_phy_offset)}",
                f"hashSlotCount   {num(h.hash_slot_count)} used of {num(info.slot_count)} slots",
                f"indexCount      {num(h.index_count)} ({num(h.items_written)} items of {num(info.item_count - 1)})",
                f"file            {esc(info.file)}, {num(info.file_size)} bytes",
            ):
                fnode.add_leaf(text, data=Node(kind, info.file))

        if d.dledger is not None:
            self._dledger_node(root, d.dledger)
        cp = d.checkpoint
        if cp is not None:
            cnode = root.add(Text.assemble(("Checkpoint", "bold"), f"  {esc(cp.file)}, {cp.file_size} bytes"),
                             data=Node("checkpoint"), expand=True)
            for text in (
                f"physicMsgTimestamp   {when(cp.physic_msg_timestamp)}",
                f"logicsMsgTimestamp   {when(cp.logics_msg_timestamp)}",
                f"indexMsgTimestamp    {when(cp.index_msg_timestamp)}",
                f"masterFlushedOffset  {num(cp.master_flushed_offset)}",
                f"confirmPhyOffset     {num(cp.confirm_phy_offset)}",
            ):
                cnode.add_leaf(text, data=Node("checkpoint"))
        else:
            root.add_leaf(Text.assemble(("Checkpoint", "bold"), "  " + esc(d.checkpoint_error or "no checkpoint file")),
                          data=Node("checkpoint"))
        if d.timer is not None:  # 5.x: enter opens the timer wheel
            root.add_leaf(Text.assemble(("Timer store", "bold"), f"  {esc(d.timer)}"), data=Node("timer"))
        self._problems_node = root.add_leaf(self._problems_label(), data=Node("problems"))
        root.add_leaf(self._files_label(d), data=Node("files"))  # last: the problems line stays where it was
        if d.settings:
            self._add_settings(root, d, app.store_name)
        for err in d.errors:
            self.notify(err, severity="error")
        if cursor is not None and cursor != Node("store"):
            for node in _walk(root):
                if node.data == cursor:
                    tree.move_cursor(node)
                    # a tree made a moment ago (a reload's) has no lines yet: move again once it has
                    self.call_after_refresh(tree.move_cursor, node)
                    break

    @staticmethod
    def _dledger_node(root: TreeNode, dl: dict) -> None:
        """A DLedger store: its entries, term files and the term timeline; a term opens the hex view at its first
        entry (the 48-byte header, then the record)."""
        node = root.add(Text.assemble(("DLedger", "bold"), f"  {esc(dl['member'])}: {num(dl['entries'])} entries from pos "
                                      f"{num(dl['divided_commitlog_offset'] or 0)}; record offset = pos + 48"),
                        data=Node("dledger"), expand=True)
        for name in ("checkpoint", "currterm"):
            values = dl[name]
            shown = ", ".join(f"{k}={v}" for k, v in values.items()) if values else (dl[f"{name}_error"] or "absent")
            node.add_leaf(f"{name:<11}{esc(shown)}", data=Node("dledger"))
        for t in dl["terms"]:
            stored = when(t["first_store_timestamp"]) if t["first_store_timestamp"] is not None else "-"
            node.add_leaf(f"term {t['term']:<6} from index {num(t['first_index'])} at pos {num(t['first_pos'])}, "
                          f"first stored {stored}", data=Node("term", t["first_pos"]))
        if dl["terms_more"]:
            node.add_leaf(f"... and {num(dl['terms_more'])} more term changes, not listed", data=Node("dledger"))

    @staticmethod
    def _add_settings(root: TreeNode, d: OverviewData, store_name: str) -> None:
        """Each setting the engine reads the store with and where it came from (``info``'s Broker settings
        table); the delay table level by level, each level marked inferred, from broker.conf, or default. The
        root is shown by the name the title gives it (``info`` has the whole path)."""
        counts = Counter(s.source for s in d.settings)
        label = Text.assemble(("Broker settings", "bold"), "  " + ", ".join(f"{counts[source]} {source}" for source
                                                                          in _SOURCE_STYLE if counts[source]))
        snode = root.add(label, data=Node("settings"), expand=False)
        for row in d.settings:
            value = store_name if row.name == "storePathRootDir" else row.value
            text = Text.assemble((esc(row.name), "bold"), f"  {esc(str(value))}  ",
                                 (esc(row.source), _SOURCE_STYLE.get(row.source, "")))
            if row.detail:
                text.append(f"  ({esc(row.detail)})", style="dim")
            if row.name != "messageDelayLevel" or d.delay is None:
                snode.add_leaf(text, data=Node("setting", row.name))
                continue
            dnode = snode.add(text, data=Node("setting", row.name), expand=False)
            for level, (delay, source) in enumerate(zip(d.delay.text.split(), d.delay.sources, strict=False), 1):
                dnode.add_leaf(Text.assemble(f"level {level:>2}  {esc(delay):>4}  ", (source, _SOURCE_STYLE.get(source, ""))),
                               data=Node("setting", row.name))

    def _topic_label(self, topic: str) -> Text:
        """A topic's label: its name cut in the middle to the width the terminal leaves it, then its counts."""
        return Text.assemble((middle_clip(esc(topic), self._topic_width), "bold cyan"),
                             self._topic_tails.get(topic, Text("")))

    def on_resize(self, event: events.Resize) -> None:
        width = topic_width(event.size.width)
        if width != self._topic_width:
            self._topic_width = width
            for node in self._topic_nodes():
                node.set_label(self._topic_label(node.data.value))

    @on(Tree.NodeHighlighted, "#overview-tree")
    def _topic_tooltip(self, event: Tree.NodeHighlighted) -> None:
        """A topic cut in its label: the whole name as the tree's tooltip (the messages screen's detail has it
        too)."""
        data = event.node.data
        topic = data.value if isinstance(data, Node) and data.kind == "topic" else None
        cut = topic is not None and len(esc(topic)) > self._topic_width
        self.query_one("#overview-tree", Tree).tooltip = Text(esc(topic)) if cut else None

    def _topic_nodes(self) -> list[TreeNode]:
        return list(self._topics_node.children) if self._topics_node is not None else []

    def _topics_label(self, d: OverviewData, listed: int | None = None) -> Text:
        topic_names = {t for t, _ in d.queue_ids} if d.queue_ids else {q.topic for q in d.queues}
        count = len(d.queue_ids) if d.queue_ids else len(d.queues)
        label = Text.assemble(("Topics", "bold"), f"  {len(topic_names)} topics, {count} queues")
        if not d.listed:
            label.append(f"  reading queue ends {num(listed or 0)}/{num(count)}…", style="dim italic")
        return label

    def _add_queue_nodes(self, tnode: TreeNode, queues: list[QueueInfo]) -> None:
        topic = tnode.data.value
        for q in queues:
            groups = self._lag_by_queue.get((topic, q.queue_id), [])
            qlabel = Text.assemble(f"queue {q.queue_id}", f"  offsets {num(q.min_offset)}…{num(q.max_offset)}",
                                   f"  {num(q.message_count)} msgs", (f"  {len(q.files)} file(s)", "dim"))
            if q.kind == "batchconsumequeue":
                qlabel.append(f"  batch CQ, {num(q.units or 0)} unit(s)", style="cyan")
            for r in groups:
                lag = "?" if r["lag"] is None else num(r["lag"])
                qlabel.append(f"  {esc(r['group'])} lag {lag}", style="yellow" if r["lag"] else "green")
            qnode = tnode.add(qlabel, data=Node("queue", (topic, q.queue_id)), expand=False, allow_expand=bool(groups))
            for r in groups:
                glabel = Text.assemble((esc(r["group"]), "bold"), f"  committed {num(r['consumer_offset'])}",
                                       f"  max {num(r['max_offset'])}", f"  lag {num(r['lag'])}")
                qnode.add_leaf(glabel, data=Node("group", (topic, q.queue_id, r["group"], r["consumer_offset"])))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        node = event.node
        if isinstance(node.data, Node) and node.data.kind == "topic" and not node.children:
            queues = self._pending_queues.pop(node.data.value, None)
            if queues is not None:
                self._add_queue_nodes(node, queues)

    def _commitlog_label(self, d: OverviewData) -> Text:
        app = self.app
        ends = [s.valid_end_offset for s in app.scans.values() if s.messages or s.blank_position is not None]
        label = Text.assemble(("CommitLog", "bold"), f"  {len(d.segments)} segment(s) of {size(d.segment_size)}")
        if d.segments:
            label.append(f"  offsets {num(d.segments[0].start_offset)}…{num(max(ends)) if ends else '?'}")
        walked = sum(1 for s in app.scans.values())
        if walked < len(d.segments):
            label.append(f"  ({walked}/{len(d.segments)} walked)", style="dim")
        return label

    @staticmethod
    def _files_label(d: OverviewData) -> Text:
        """One line of the census: kinds, files, sizes, what does not belong (``rmq-inspect census`` lists it)."""
        label = Text.assemble(("Files", "bold"), "  ")
        if d.not_a_store is not None:
            label.append(f"not a store: {esc(d.not_a_store)}", style="bold red")
        elif d.census is None:
            label.append("counting…", style="dim")
        else:
            label.append(esc(d.census), style="bold red" if d.census_errors else "")
        return label

    def _problems_label(self) -> Text:
        n = len(self.app.all_problems())
        label = Text.assemble(("Problems", "bold"), "  ")
        label.append(f"{n} found", style="bold red" if n else "green")
        if not self.app.scan_complete:
            label.append(" so far (commitlog walk not finished)", style="dim")
        return label

    # -- updates from the app ----------------------------------------------------------------------------------

    def segment_scanned(self, index: int, scan: SegmentScan, complete: bool) -> None:
        node = self._segment_nodes.get(index)
        if node is not None and self.data is not None:
            node.set_label(segment_label(self.data.segments[index], scan, complete, self.data.segment_size))
        if self._commitlog_node is not None and self.data is not None:
            self._commitlog_node.set_label(self._commitlog_label(self.data))

    def problems_changed(self) -> None:
        if self._problems_node is not None:
            self._problems_node.set_label(self._problems_label())

    def scan_progress(self, message: ScanProgress) -> None:
        if message.task != "segments" or not self.query("#overview-walk"):
            return
        bar = self.query_one(ProgressBar)
        bar.update(total=message.total, progress=message.done)
        status = self.query_one("#overview-walk", SafeStatic)
        if message.finished:
            status.update(Text(f"commitlog: {esc(message.label)}", style="dim"))
            self.problems_changed()
            if self.data is not None and self._commitlog_node is not None:
                self._commitlog_node.set_label(self._commitlog_label(self.data))
        else:
            status.update(Text(f"commitlog: {esc(message.label)} (escape stops)"))

    # -- selection ---------------------------------------------------------------------------------------------

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        node = event.node.data
        if isinstance(node, Node) and not self.open(node):
            event.node.toggle()

    def action_open(self) -> None:
        tree = self.query_one(Tree)
        if tree.cursor_node is not None and isinstance(tree.cursor_node.data, Node):
            if not self.open(tree.cursor_node.data):
                tree.cursor_node.toggle()

    def open(self, node: Node) -> bool:
        """Open the view of ``node``; False when it has none (the caller toggles it instead)."""
        app = self.app
        if node.kind == "segment" and self.data is not None:
            app.show_hex(self.data.segments[node.value].start_offset)
        elif node.kind == "commitlog":
            app.show_messages()
        elif node.kind == "topic":
            app.show_messages(topic=node.value)
        elif node.kind == "queue":
            topic, qid = node.value
            app.show_messages(topic=topic, queue=qid)
        elif node.kind == "group":
            topic, qid, _group, offset = node.value
            app.show_messages(topic=topic, queue=qid, start=offset)
        elif node.kind == "indexfile":
            app.show_busiest(node.value)
        elif node.kind == "indexfault":  # a damaged file: why, not a list its damage leaves empty
            reasons = self.data.index_faults.get(node.value, []) if self.data is not None else []
            app.notify(f"{node.value} is damaged: " + "; ".join(reasons) + " (Problems, 6, lists every finding; "
                       "`rmq-inspect rebuild STORE --out DIR` writes a new index)", severity="error", timeout=12)
        elif node.kind == "term":
            app.show_hex(node.value)
        elif node.kind == "problems":
            app.switch_mode("problems")
        elif node.kind == "timer":
            app.switch_mode("timer")
        else:
            return False
        return True

    def action_file_hex(self) -> None:
        """The hex screen over the file of the node under the cursor: a queue's first consume-queue file (its
        files are listed on the Files line), an index file (a damaged one too: its bytes say what is wrong)."""
        tree = self.query_one(Tree)
        node = tree.cursor_node.data if tree.cursor_node is not None else None
        file = None
        if isinstance(node, Node) and node.kind in ("indexfile", "indexfault"):
            file = node.value
        elif isinstance(node, Node) and node.kind in ("queue", "group") and self.data is not None:
            topic, qid = node.value[:2]
            info = next((q for q in self.data.queues if (q.topic, q.queue_id) == (topic, qid)), None)
            file = info.files[0] if info is not None and info.files else None
        if file is None:
            self.notify("x shows the bytes of a queue or index file: put the cursor on a queue (open a topic) or an "
                        "index file", severity="warning")
            return
        self.app.show_file_hex(file)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the binding: the footer offers `esc Stop walk` only while a walk runs
        if action == "stop_walk":
            return self.app.scan_running
        return True

    def action_stop_walk(self) -> None:
        self.app.cancel_scan()
