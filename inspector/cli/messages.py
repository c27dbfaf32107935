"""``rmq-inspect messages`` and ``show``: messages in commitlog or queue order, and one message in full."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from inspector.cli.output import (
    Folded,
    console,
    err_console,
    esc,
    fold_runs,
    json_safe_bytes,
    plain,
    print_json,
    print_json_chunk,
    table,
    warn_problem,
    when,
)
from inspector.cli.progress import stopped_note, unindexed_scan
from inspector.engine import (
    BadInput,
    LogWindow,
    Message,
    MoreAfterLimit,
    NotFound,
    Problem,
    Store,
    StoreError,
    body_line,
    body_preview,
    decode_trace,
    decompress_body,
    expired_start_note,
    in_window,
    inner_messages,
    is_inner_batch,
    is_lmq,
    json_lines,
    log_order,
    log_window,
    message_view,
    queue_window,
    record_line,
    trace_topic_of,
)

# records per JSON batch: a few batches are encoded at once on threads, each with an output buffer of ~3.5 KB a
# record (worst case) and its lines; 4,096 keeps a whole 1 GiB segment near 250 MB peak (32,768: 388 MB on an
# 8 GiB store, after the pages' release; 8,192: 305 MB)
JSON_BATCH = 1 << 12
PROBLEM_RUN = 8  # findings of one code in a row shown in the messages table before the rest are one counted row


def _queue_order(store: Store, topic: str, queue_id: int, start: int | None, units: list | None = None):
    """The queue's messages; ``units``: the unit of the item last given is kept there (the table's tagsCode)."""
    for unit, item in store.queue_messages(topic, queue_id, start or 0):
        if units is not None:
            units[:] = [unit]
        yield item


def run_messages(store: Store, topic: str | None, queue_id: int | None, start: int | None, limit: int,
                 as_json: bool, decompress: bool, *, since: int | None = None, until: int | None = None) -> int:
    """``since``/``until``: only the messages stored in [since, until) (epoch ms), found by binary search
    (``log_window``, ``queue_window``): the walk starts where the window starts and ends where it ends."""
    if queue_id is not None and topic is None:
        raise BadInput("--queue needs --topic")
    unit: list = []  # queue order: the unit of the message just given (the table shows its tagsCode)
    # a --from below what retention left lists from there: said first, on stderr (stdout stays pure JSON Lines)
    note = expired_start_note(store, start, topic, queue_id)
    if note is not None:
        err_console.print(f"note: {note}", markup=False, soft_wrap=True)
    windowed = since is not None or until is not None
    if topic is not None and queue_id is not None:
        stop = None
        if windowed:
            lo, stop = queue_window(store, topic, queue_id, since, until)
            start = lo if start is None else max(start, lo)
        stream = _queue_order(store, topic, queue_id, start, None if as_json else unit)
        if windowed:
            stream = in_window(stream, LogWindow(since, until, None, None), queue_stop=stop)
    elif windowed:
        window = log_window(store, since, until)
        if window.start is not None:
            start = window.start if start is None else max(start, window.start)
        # one Message at a time: the window applies to each record (no columnar batches here)
        stream = in_window(log_order(store, start, topic=topic), window)
    else:
        # JSON: runs of clean records as columnar batches, encoded in bulk (json_lines filters topics)
        stream = log_order(store, start, topic=topic, batch_size=JSON_BATCH if as_json else None)
    if as_json:
        # an LMQ queue's records keep their own topic: the queue chose them, no topic filter on top
        return _json_out(stream, None if queue_id is not None and is_lmq(topic) else topic, limit, decompress,
                         queue_order=queue_id is not None, trace_topic=trace_topic_of(store))
    queue_order = queue_id is not None
    t = table("Messages", "physical offset", "topic", "queue", "queue offset", "stored", "tags",
              *(("tagsCode",) if queue_order else ()), "keys", "size", "body")
    shown = 0
    more: MoreAfterLimit | None = None
    # a run of more than PROBLEM_RUN findings of one code is one counted row in the table (2,000 empty files
    # named as segments took seconds to draw); stderr still names every one, as it is read
    for item in fold_runs(_warned(stream), _problem_code, longer_than=PROBLEM_RUN, head=PROBLEM_RUN):
        if isinstance(item, Folded):
            t.add_row("...", Text(f"{item.count:,} more {item.key} finding(s): each is on stderr", style="red"),
                      "", "", "", "", "", "", *(("",) if queue_order else ()), "")
            continue
        if isinstance(item, Problem):
            t.add_row(str(item.offset), Text(plain(item.reason), style="red"), "", "", "", "", "", "",
                      *(("",) if queue_order else ()), plain(item.file))
            continue
        if shown >= limit:
            more = MoreAfterLimit(limit, item.physical_offset, item.queue_offset)
            break
        shown += 1
        # queue order: the unit's tagsCode (the tag's hashCode; a delivery time in SCHEDULE_TOPIC_XXXX)
        code = (str(unit[0].tags_code) if unit and unit[0] is not None else "-",) if queue_order else ()
        t.add_row(str(item.physical_offset), plain(item.topic), str(item.queue_id), str(item.queue_offset),
                  when(item.store_timestamp), plain(item.tags or ""), *code, plain(" ".join(item.keys)),
                  str(item.total_size), plain(body_line(item)))
        if queue_id is None:  # commitlog order: an inner-batch record's messages under it (queue order lists them)
            _inner_rows(t, item)
    console.print(t)
    console.print(f"{shown} message(s)" + (f"; {_more_note(more, queue_id is not None)}" if more else ""))
    return 0


def _warned(stream: Iterable[Message | Problem]) -> Iterator[Message | Problem]:
    """``stream`` as it is, each finding warned on stderr when it is read (a folded one too)."""
    for item in stream:
        if isinstance(item, Problem):
            warn_problem(item)
        yield item


def _problem_code(item: Message | Problem) -> str | None:
    return item.code if isinstance(item, Problem) else None


def _inner_rows(t: Table, msg: Message) -> None:
    """Indented rows under an inner-batch record: each inner message at its queue offset (base + i), its own
    tags, keys, body size and body; a body that does not split says why in one row."""
    if not is_inner_batch(msg):
        return
    inner, error = _inner(msg)
    for m in inner:
        t.add_row(f"  └ #{m.inner_index}", "", "", str(m.queue_offset), "", plain(m.tags or ""),
                  plain(" ".join(m.keys)), str(len(m.body)), plain(body_line(m)))
    if error is not None:
        t.add_row("  └", Text(f"inner messages: {plain(error)}", style="red"), "", "", "", "", "", "", "")


def _more_note(more: MoreAfterLimit, queue_order: bool) -> str:
    """What a listing cut by --limit says: that more follow, and the --from that continues it."""
    start = more.queue_offset if queue_order else more.physical_offset
    where = "queue offset" if queue_order else "physical offset"
    return f"stopped at --limit {more.limit}: more messages follow ({where} {start}: --from {start} continues)"


def _json_out(stream, topic: str | None, limit: int, decompress: bool, queue_order: bool,
              trace_topic: str | None = None) -> int:
    """JSON Lines: the engine encodes whole batches of clean records at once (json_lines); bytes straight out.
    A limit that leaves messages out is said on stderr (stdout stays pure JSON Lines for jq)."""
    sys.stdout.flush()
    for chunk in json_lines(stream, decompress=decompress, topic=topic, limit=limit, trace_topic=trace_topic):
        if isinstance(chunk, Problem):
            warn_problem(chunk)
        elif isinstance(chunk, MoreAfterLimit):
            err_console.print(f"note: {_more_note(chunk, queue_order)}", markup=False, soft_wrap=True)
        else:
            print_json_chunk(chunk)  # stdout, or the rows to --format / -o
    sys.stdout.flush()
    return 0


def run_follow(store: Store, topic: str | None, start: int | None, limit: int | None, as_json: bool, decompress: bool,
               idle_timeout: float | None = None, interval: float = 0.2) -> int:
    """``messages --follow``: print complete messages as a running broker writes them (read-only polling)."""
    import sys

    from inspector.engine import follow_log

    if start is None:  # like tail -f: start at the current end of the log
        start = store.max_offset()
    shown = 0
    trace_topic = trace_topic_of(store)  # a custom trace topic's bodies decoded, as `messages --json` does
    for item in follow_log(store, start, interval=interval, idle_timeout=idle_timeout):
        if isinstance(item, Problem):
            warn_problem(item)
            continue
        if topic is not None and item.topic != topic:
            continue
        if as_json:  # an inner-batch record with its inner array, as `messages --json` gives it
            sys.stdout.write(bytes(json_safe_bytes(record_line(item, decompress=decompress,
                                                                    trace_topic=trace_topic))).decode())
        else:
            console.print(f"{item.physical_offset}  {plain(item.topic)}  q{item.queue_id}#{item.queue_offset}  "
                          f"{when(item.store_timestamp)}  {plain(body_line(item))}")
            for m in _inner(item)[0]:
                console.print(f"  └ #{m.inner_index}  q{m.queue_id}#{m.queue_offset}  {plain(' '.join(m.keys))}  "
                              f"{plain(body_line(m))}")
        sys.stdout.flush()
        shown += 1
        if limit is not None and shown >= limit:
            break
    return 0


BODY_LIMIT = 4096  # show: body bytes (characters of pretty JSON) printed unless --body-limit says otherwise


def run_show(store: Store, ref: str, as_json: bool, decompress: bool, raw: str | None = None,
             body_limit: int = BODY_LIMIT, scan: bool = True, budget: float | None = None) -> int:
    if raw is not None:
        if as_json:
            raise BadInput("--raw writes the body's bytes; it does not take --json")
        if raw == "-" and sys.stdout.isatty():  # refused before the message is read
            raise BadInput("--raw -: standard output is a terminal, and a body's bytes would garble it; give a "
                           "file name, or pipe the output (| xxd)")
        return write_raw(_located(store, ref, scan, budget, True)[0], raw, decompress)
    msg, note = _located(store, ref, scan, budget, as_json)  # note: found by scanning log no index file covers
    inner, inner_error = _inner(msg)
    if as_json:
        view = message_view(msg, decompress=decompress, trace_topic=trace_topic_of(store))
        if note is not None:
            view["note"] = note
        if is_inner_batch(msg):
            view["inner_messages"] = [message_view(m, decompress=decompress) for m in inner]
            view["inner_messages_error"] = inner_error
        print_json(view)
        return 0
    print_message(msg, body_limit=body_limit, trace_topic=trace_topic_of(store))
    if note is not None:
        err_console.print(esc(note))
    if is_inner_batch(msg):
        t = table(f"inner messages ({len(inner)}; INNER_NUM {plain(msg.properties.get('INNER_NUM', '-'))}, "
                  f"INNER_BASE {plain(msg.properties.get('INNER_BASE', '-'))})",
                  "#", "queue offset", "flag", "tags", "keys", "unique key", "size", "body")
        for m in inner:
            t.add_row(str(m.inner_index), str(m.queue_offset), str(m.flag), plain(m.tags or ""),
                      plain(" ".join(m.keys)), plain(m.unique_key or ""), str(len(m.body)), plain(body_line(m)))
        console.print(t)
        if inner_error is not None:
            console.print(f"[red]inner messages: {esc(inner_error)}[/]", markup=True)
    return 0


def _located(store: Store, ref: str, scan: bool, budget: float | None, quiet: bool) -> tuple[Message, str | None]:
    """``store.locate``, its scan of the log no index file covers shown and limited (``unindexed_scan``); not
    found after a scan that stopped at its budget, the answer says so (a partial answer)."""
    with unindexed_scan(store, budget, quiet) as limits:
        try:
            return store.locate(ref, scan)
        except NotFound as e:
            stopped = stopped_note(limits)
            if stopped is None:
                raise
            raise NotFound(f"{e.reason}; {stopped}", e.file, e.offset) from None


def _inner(msg: Message) -> tuple[list[Message], str | None]:
    """The inner messages of an inner-batch record (none for another record), and why the rest are missing."""
    if not is_inner_batch(msg):
        return [], None
    try:
        return list(inner_messages(msg)), None
    except StoreError as e:
        return [], str(e)


def print_message(msg: Message, body_limit: int = BODY_LIMIT, trace_topic: str | None = None) -> None:
    """Every field, the properties, and the body as the engine's preview shows it (decompressed per the sysFlag
    whatever --decompress says: that is the JSON view's choice)."""
    v = message_view(msg, decompress=False)
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column(overflow="fold")
    for name in ("file", "position", "physical_offset", "total_size", "magic_version", "body_crc", "body_crc_ok",
                 "queue_id", "flag", "queue_offset", "stored_physical_offset", "sys_flag", "transaction", "compression",
                 "born_timestamp", "born_host", "store_timestamp", "store_host", "reconsume_times",
                 "prepared_transaction_offset", "topic", "tags", "keys", "unique_key", "msg_id", "body_length"):
        value = v[name]
        if name.endswith("timestamp"):
            value = f"{value} ({when(value)})"
        t.add_row(name, plain(value))
    console.print(Panel(t, title=f"message @ {msg.physical_offset}", title_align="left"))
    props = table("properties", "name", "value")
    for k, val in msg.properties.items():
        props.add_row(plain(k), plain(val))
    console.print(props)
    print_body(msg, body_limit)
    trace = decode_trace(msg, trace_topic)
    if trace is not None:  # a trace topic's record: its trace records by name, under the raw body
        from inspector.cli.trace import print_trace_body

        print_trace_body(trace)


def print_body(msg: Message, limit: int = BODY_LIMIT) -> None:
    """The body readably: pretty JSON, text, or a hex dump for bytes that are no text; decompressed per the
    sysFlag (a body that does not decompress: its stored bytes, and why); cut at ``limit`` with a note."""
    preview = body_preview(msg, "auto", limit)
    what = {"json": "JSON", "text": "text", "binary": "binary: hex dump", "empty": "empty"}[preview.kind]
    title = Text(f"body ({preview.describe()}; {what})")
    if preview.decompress_error is not None:
        console.print(Text(f"body: {preview.decompress_error}; the stored bytes are shown", style="red"))
    # a Text, never markup: the body is data; escaped before layout so the panel's widths hold
    content = Text(preview.for_terminal())
    note = preview.truncation_note(f"--body-limit {preview.total} shows all of it, --raw FILE writes the bytes")
    if note is not None:
        content.append("\n" + note, style="yellow")
    console.print(Panel(content, title=title, title_align="left"))


def write_raw(msg: Message, target: str, decompress: bool) -> int:
    """``show --raw``: the body's exact bytes as stored (``--decompress``: as the producer sent them) into a new
    file, or to standard output (``-``, which the caller has checked is no terminal). Never overwrites a file:
    the path could be one of the store's own."""
    data = decompress_body(msg) if decompress else msg.body
    if not msg.compressed:
        what = "the body as stored (not compressed)"
    elif decompress:
        what = f"the body {msg.compression}-decompressed from {len(msg.body):,} stored bytes"
    else:
        what = f"the body as stored, {msg.compression}-compressed (--decompress writes it decompressed)"
    if target == "-":
        sys.stdout.flush()
        out = getattr(sys.stdout, "buffer", None)
        if out is None:  # a text-only stdout (an embedding caller's StringIO) cannot carry bytes
            raise BadInput("--raw -: standard output takes no bytes here; give a file name")
        out.write(data)
        out.flush()
        return 0
    try:
        with open(target, "xb") as f:  # exclusive: refuses an existing file (or a link to one)
            f.write(data)
    except FileExistsError:
        raise BadInput(f"--raw {target}: the file exists; rmq-inspect writes only a new file") from None
    except OSError as e:
        raise BadInput(f"--raw {target}: cannot write: {e.strerror or e}") from None
    console.print(Text(f"wrote {len(data):,} bytes to {target}: {what}"))
    return 0
