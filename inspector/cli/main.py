"""Entry point of ``rmq-inspect``: argument parsing, one-line errors, documented exit codes.

Exit codes: 0 success; 1 the thing asked for was not found; 2 bad input (arguments, a path
that is not a store, an id that is not an id); 3 a store file could not be read at all;
4 verify found problems.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from inspector import version
from inspector.cli.formats import add_format_args, chosen_format
from inspector.commandline import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_STORE_ERROR,
    geometry_options,
    keep_heap_top,
    kind_arg,
)
from inspector.commandline import OneLineParser as _Parser
from inspector.commandline import int_arg as _int
from inspector.engine import (
    DLEDGER_INDEX_FILE_SIZE,
    IDLE_TIMEOUT,
    LENGTH,
    LIMIT,
    OFFSET,
    PORT,
    PRE_DLEDGER,
    QUEUE_ID,
    QUEUE_OFFSET,
    SCAN_BUDGET,
    START,
    STORE_TIME,
    TIME_MS,
    TIMER_SLOT,
    TIMER_START,
    BadInput,
    NotFound,
    StoreError,
    check_window,
    exit_code,
    terminal_text,
)

if TYPE_CHECKING:  # Store is imported where a store is opened: it loads numpy, which --help need not wait for
    from inspector.engine import Store

SUBCOMMANDS = ("info", "census", "messages", "show", "key", "chain", "decode-id", "hex", "write", "rebuild", "verify", "tui",
               "web", "spark", "tour", "exercises", "templates", "timer", "preflight", "diff", "salvage", "trace",
               "story",
               "grep", "groups", "group", "offsets", "stats", "serve-tui")


# The main form first: a bare store opens it. (argparse would list every command in one long brace instead.)
USAGE = """%(prog)s STORE            open a store: the terminal UI on a terminal, else `info`
       %(prog)s COMMAND ...      one of the commands below (`%(prog)s COMMAND --help` for its options)
       %(prog)s --version"""


def _store_args(p: argparse.ArgumentParser, *, optional: bool = False) -> None:
    if optional:
        p.add_argument("store", nargs="?", help="store root directory (the broker's storePathRootDir); with "
                       "--keyindex optional, and then it only selects that store's rows")
    else:
        p.add_argument("store", help="store root directory (the broker's storePathRootDir)")
    g = p.add_argument_group("geometry (broker configuration; inferred from the files when omitted)")
    geometry_options(g)
    _config_options(g)
    _member_option(g)


def _member_option(g) -> None:
    g.add_argument("--dledger-member", metavar="ID",
                   help="with several dledger-<id>/ folders under the root: the member to read, e.g. n1 (default: "
                        "the broker config's dLegerSelfId, else the first by name, with a warning)")


def _config_options(g) -> None:
    """The broker's configuration file and delay table: on every command that opens a store (and ``write``)."""
    g.add_argument("--broker-config", metavar="FILE",
                   help="the broker's broker.conf (Java properties): paths (storePathCommitLog, also split over "
                        "several folders), file sizes, index slots/items, messageDelayLevel; flags win over it")
    g.add_argument("--delay-levels", help="messageDelayLevel, e.g. '1s 5s 10s ...' (default: the broker.conf's, "
                                          "else inferred from the store's SCHEDULE_TOPIC_XXXX units)")


def _grep_parser(sub) -> None:
    p = sub.add_parser("grep", help="messages whose body, keys, tags or properties match a pattern, in log order; "
                       "exit 1 when none", description="Search the commitlog: a byte search over the mapped segments "
                       "finds candidates, only the records around them are decoded, and each field is matched on "
                       "its own bytes (a match never spans two fields). Compressed bodies are decompressed and "
                       "searched (every compressed record is decoded: slower). Exit codes: 0 hits, 1 no hit, "
                       "2 bad input (an invalid regex), 3 no hit and a segment could not be read.")
    _store_args(p)
    p.add_argument("pattern", help="a Python regular expression over bytes (UTF-8), or with --fixed a plain string")
    p.add_argument("-F", "--fixed", action="store_true", help="the pattern is a plain string, not a regex")
    p.add_argument("-i", "--ignore-case", action="store_true", help="ASCII letters match in either case")
    p.add_argument("--in", dest="fields", metavar="FIELDS",
                   help="where to search, comma-separated: body (decompressed), keys (KEYS and UNIQ_KEY), tags, "
                        "props (every property's name and value); default: all")
    p.add_argument("--topic", help="only this topic's messages")
    p.add_argument("--tag", help="only messages with this tag (TAGS)")
    p.add_argument("--limit", type=kind_arg(LIMIT), help="at most this many hits (default 100); a search it "
                   "cuts says so on stderr")
    _window_args(p)
    p.add_argument("--json", action="store_true", help="JSON Lines, one hit per line")
    add_format_args(p, rows="one a hit (the --json lines)")


def _window_args(p, *, begin: bool = False) -> None:
    """--since / --until: a store-time window, [since, until), read by the engine's STORE_TIME (``begin``: key's
    older --begin stays an alias of --since)."""
    for name, side in (("--since", "at or after"), ("--until", "before")):
        names = (name, "--begin") if begin and name == "--since" else (name,)
        p.add_argument(*names, dest=name[2:], type=kind_arg(STORE_TIME), metavar="TIME",
                       help=f"only messages stored {side} TIME: 2025-09-19T10:00:00 (local time, UTC under --utc; "
                            "or with a zone: Z, +08:00), a date, epoch ms, or -15m / -2h / -7d before now")


def _offsets_parser(sub) -> None:
    p = sub.add_parser("offsets", help="consumer offsets: `offsets plan` plans a reset as the broker would do it")
    plans = p.add_subparsers(dest="offsets_command", title="commands", metavar="COMMAND", required=True,
                             parser_class=_Parser)
    p = plans.add_parser("plan", help="per queue, the offset a reset picks (resetOffsetByTime's binary search on "
                         "store time) and how many messages it replays or skips; --out writes a new offsets file",
                         description="Exit codes: 0, 1 no such group, 2 bad input (a time before every queue's "
                         "first message, an offset outside the queue, --out exists), 3 unreadable store. Nothing is "
                         "written on an error, never into the store.")
    _store_args(p)
    p.add_argument("--group", required=True, help="the consumer group")
    to = p.add_mutually_exclusive_group(required=True)
    to.add_argument("--at", type=kind_arg(STORE_TIME), metavar="TIME", help="the first message stored at or after "
                    "TIME (5.x getOffsetInQueueByTime, BoundaryType.LOWER): 2025-09-19T10:00:00 (local time, UTC "
                    "under --utc; or with a zone), a date, epoch ms, or -15m / -2h / -7d before now")
    to.add_argument("--to-offset", type=kind_arg(QUEUE_OFFSET), metavar="N", help="queue offset N (one queue: with "
                    "--topic and --queue; the broker's range [min, max + 1])")
    to.add_argument("--to-end", action="store_true", help="each queue's max offset: skip everything pending")
    p.add_argument("--topic", help="only this topic's queues (default: every topic the group has offsets for)")
    p.add_argument("--queue", type=kind_arg(QUEUE_ID), help="only this queue (with --topic)")
    p.add_argument("--backward-only", action="store_true", help="a queue moves only backwards, as "
                   "Broker2Client.resetOffset with isForce=false (4.x, or useServerSideResetOffset=false): one "
                   "whose committed offset is not ahead of the picked one keeps it")
    p.add_argument("--nearest", action="store_true", help="with --at: the message stored nearest TIME, as 4.9.8's "
                   "ConsumeQueue.getOffsetInQueueByTime picks it (either side; after the last message: the last, "
                   "not the max)")
    p.add_argument("--out", metavar="FILE", help="write the new offsets file (the store's own form) to FILE, a "
                   "new file outside the store")
    p.add_argument("--force", action="store_true", help="with --out: replace FILE when it exists")
    p.add_argument("--json", action="store_true")

UTC_HELP = ("show every time in UTC (default: this machine's local zone; every shown time names its zone); an ISO "
            "time typed without a zone (--since 2025-09-19T10:00) is then read in UTC too")

_parser: argparse.ArgumentParser | None = None


def _the_parser() -> argparse.ArgumentParser:
    """The parser, built once per process (~12 ms: argparse asks gettext for every subcommand's labels); a
    process that calls main() many times (the fuzzers, a test suite) reuses it - parse_args leaves it as it was."""
    global _parser
    if _parser is None:
        _parser = build_parser()
    return _parser


class _VersionAction(argparse._VersionAction):
    """argparse's ``--version``, the installed version looked up only when asked (reading the package metadata
    costs ~40 ms that every other command would pay when building the parser)."""

    def __call__(self, parser, namespace, values, option_string=None):
        self.version = f"%(prog)s {version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rmq-inspect", usage=USAGE, description="See what is really in an Apache RocketMQ store.")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--utc", action="store_true", help=UTC_HELP)
    sub = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND", prog="rmq-inspect",
                                parser_class=_Parser)

    p = sub.add_parser("info", help="segments, topics and queues, index files, checkpoint, shutdown state, problems")
    _store_args(p)
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="the list --rows names (default segments)", document=True)
    p.add_argument("--rows", choices=INFO_ROWS, default="segments",
                   help="with --format / -o: which of info's lists to write (default: %(default)s)")

    p = sub.add_parser("census", help="every file and folder of the store root by kind, with sizes; unknown and "
                       "misplaced entries (exit 4 on what the broker would not start with)")
    p.add_argument("store", help="store root directory (the broker's storePathRootDir)")
    p.add_argument("--broker-config", metavar="FILE", help="the broker's broker.conf: the commitlog is counted where "
                   "storePathCommitLog puts it (outside the root, or split over several folders)")
    _member_option(p)
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a kind (--json's kinds)", document=True)

    p = sub.add_parser("messages", help="messages in commitlog order, or queue order with --topic and --queue")
    _store_args(p)
    p.add_argument("--topic")
    p.add_argument("--queue", type=kind_arg(QUEUE_ID))
    p.add_argument("--from", dest="start", type=kind_arg(START), help="physical offset, or queue offset with --topic/--queue")
    p.add_argument("--limit", type=kind_arg(LIMIT), help="at most this many messages (default 100; --follow: no limit)")
    p.add_argument("--decompress", action="store_true", help="also give the decompressed body")
    p.add_argument("--json", action="store_true", help="JSON Lines, one message per line")
    add_format_args(p, rows="one a message (the --json lines)")
    p.add_argument("--follow", action="store_true",
                   help="keep printing new messages as a running broker writes them (from the end unless --from)")
    p.add_argument("--idle-timeout", type=kind_arg(IDLE_TIMEOUT), metavar="SECONDS",
                   help="with --follow: stop after this many seconds with nothing new (at most a day)")
    _window_args(p)

    p = sub.add_parser("show", help="one message by physical offset, offset msgId or unique key")
    _store_args(p)
    p.add_argument("ref")
    p.add_argument("--no-scan", dest="scan", action="store_false",
                   help="do not scan the part of the log no index file covers (the answer says it was not searched)")
    p.add_argument("--budget", type=kind_arg(SCAN_BUDGET), metavar="SECONDS",
                   help="stop that scan after this many seconds (the answer says where it stopped; default: no limit)")
    p.add_argument("--decompress", action="store_true",
                   help="--json: also give the decompressed body; --raw: write it decompressed (the table always "
                   "shows the body decompressed)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--body-limit", type=kind_arg(LENGTH), default=None, metavar="N",
                   help="show at most N body bytes (characters of pretty JSON; default 4096)")
    p.add_argument("--raw", metavar="FILE", help="write the body's exact bytes, as stored (compressed or not), to "
                   "a new FILE, or with '-' to standard output when it is no terminal (a pipe: nothing else is written there)")

    p = sub.add_parser("trace", help="one message's trace timeline: every trace record (Pub, SubBefore, SubAfter, "
                       "EndTransaction, Recall) that mentions it, by time; exit 1 when none")
    _store_args(p)
    p.add_argument("ref", help="the message as show takes it: its physical offset, offset msgId or UNIQ_KEY (an id "
                   "no message has still searches the trace records)")
    p.add_argument("--trace-topic", metavar="TOPIC", help="a custom trace topic (default: the broker config's "
                   "msgTraceTopicName; RMQ_SYS_TRACE_TOPIC and rmq_sys_TRACE_DATA_* always)")
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a trace record (--json's records)", document=True)

    p = sub.add_parser("story", help="where did my message go: every record of it (original, scheduled, delivered, "
                       "retry, dead letter, half/op/commit, timer, batch, LMQ, trace) by store time, with each "
                       "consumer group's consumed or not")
    _store_args(p)
    p.add_argument("ref", help="the message's offset msgId, UNIQ_KEY or physical offset; or a TOPIC followed by KEY")
    p.add_argument("key", nargs="?", help="with REF a topic: the first message indexed under TOPIC#KEY")
    p.add_argument("--no-scan", dest="scan", action="store_false",
                   help="do not scan the part of the log no index file covers (the answer says it was not searched)")
    p.add_argument("--trace-topic", metavar="TOPIC", help="a custom trace topic (default: the broker config's "
                   "msgTraceTopicName; RMQ_SYS_TRACE_TOPIC and rmq_sys_TRACE_DATA_* always)")
    p.add_argument("--budget", type=kind_arg(SCAN_BUDGET), metavar="SECONDS",
                   help="stop reading after this many seconds: the story told so far, and a note on what was not "
                   "read (default: no limit)")
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a record (--json's records)", document=True)

    _grep_parser(sub)

    p = sub.add_parser("stats", help="the log's records counted by topic, queue, tag, host, producer group, minute, "
                       "hour or size: bytes, shares, size buckets, rate, compression, bytes per segment, what "
                       "deleting the oldest segments drops", description="One pass over the commitlog (the bulk "
                       "kernel's columnar batches). Exit codes: 0, 2 bad input, 3 part of the log could not be read "
                       "(the figures count what could).")
    _store_args(p)
    p.add_argument("--by", default="topic", choices=("topic", "queue", "tag", "host", "producer-group", "minute",
                                                      "hour", "size"), help="the rows' key (default topic)")
    _window_args(p)
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a key's counts (--json's rows)", document=True)

    p = sub.add_parser("diff", help="compare two stores by physical offset: commitlog ranges, records, queues, "
                       "checkpoint and config; exit 0 identical, 1 differences", description="Exit codes (as cmp "
                       "and diff): 0 identical, 1 differences, 2 usage, 3 a store cannot be read (B is not a store).")
    _store_args(p)
    p.add_argument("other", metavar="B", help="the second store root")
    p.add_argument("--limit", type=kind_arg(LIMIT), default=100,
                   help="at most this many differing ranges and queues (default 100); what it leaves out is said")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("salvage", help="copy a damaged store's readable records into a new store a broker starts "
                       "on and keeps whole (--plan: what it would do, writes nothing)", description="Every span of "
                       "the commitlog is intact (kept at its offset), recoverable (from --from-replica) or lost "
                       "(filled with placeholder records that keep each lost record's queue offset); queues and "
                       "index are rebuilt, config copied. Exit codes: 0 nothing lost, 4 data lost, 2 usage "
                       "(--out not empty), 3 a store cannot be read.")
    _store_args(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--plan", action="store_true", help="say what a salvage would do; write nothing")
    what.add_argument("--out", metavar="DIR", help="the new store (a new or empty directory outside the store)")
    p.add_argument("--from-replica", metavar="B", help="another copy of the store (a slave, a backup): damaged spans "
                   "are taken from it where its records read whole and it agrees with this store around them")
    p.add_argument("--limit", type=kind_arg(LIMIT), default=100,
                   help="lost records listed per span (default 100); the rest counted, and said")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("groups", help="every consumer group: topics, queues, total lag, retry and DLQ counts")
    _store_args(p)
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a group (--json's groups)", document=True)

    p = sub.add_parser("group", help="one consumer group: per queue its committed offset, min, max, lag, the last "
                       "consumed and first unconsumed message; then the messages after its offsets; exit 1 when "
                       "no source names the group")
    _store_args(p)
    p.add_argument("group", help="the consumer group's name")
    p.add_argument("--limit", type=kind_arg(LIMIT), help="at most this many pending messages (default 20)")
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a queue (--json's queues)", document=True)

    _offsets_parser(sub)

    p = sub.add_parser("key", help="all messages indexed under a key")
    _store_args(p, optional=True)
    p.add_argument("topic")
    p.add_argument("key")
    _window_args(p, begin=True)
    p.add_argument("--end", type=kind_arg(STORE_TIME), metavar="TIME",
                   help="only messages stored at or before TIME (inclusive, as the broker's queryMessage end; "
                        "--until is exclusive)")
    p.add_argument("--keyindex", metavar="DIR",
                   help="answer from a key table written by `rmq-inspect spark keyindex` instead of the index files")
    p.add_argument("--no-scan", dest="scan", action="store_false",
                   help="do not scan the part of the log no index file covers (the answer says it was not searched)")
    p.add_argument("--budget", type=kind_arg(SCAN_BUDGET), metavar="SECONDS",
                   help="stop that scan after this many seconds (the answer says where it stopped; default: no limit)")
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a message (--json's messages)", document=True)

    p = sub.add_parser("chain", help="the hash-slot walk for topic#key in every index file")
    _store_args(p)
    p.add_argument("topic")
    p.add_argument("key")
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one an index file (--json's files; its items as JSON text)", document=True)

    p = sub.add_parser("decode-id", help="decode an offset msgId / unique key")
    p.add_argument("id")
    p.add_argument("--store", help="check which reading finds a message in this store")
    p.add_argument("--broker-config", metavar="FILE", help="with --store: the broker's broker.conf (commitlog folders)")
    _member_option(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("hex", help="hex dump with message boundaries and field names")
    _store_args(p)
    p.add_argument("offset", type=kind_arg(OFFSET))
    p.add_argument("--length", type=kind_arg(LENGTH), default=256)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("timer", help="the 5.x timer store: timer-log units (default), --wheel slots, --slot N's "
                       "chain, --summary with pending timers by delivery time")
    _store_args(p)
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--wheel", action="store_true", help="the non-empty slots of timerwheel")
    shown.add_argument("--slot", type=kind_arg(TIMER_SLOT), help="one slot's chain, last_pos -> prev_pos ..., "
                       "each hop's unit and record, hops against num")
    shown.add_argument("--summary", action="store_true", help="settings, timercheck, timermetrics and the "
                       "pending timers by delivery time")
    p.add_argument("--from", dest="start", type=kind_arg(TIMER_START),
                   help="units from this timer-log offset; with --wheel, slots from this slot number")
    p.add_argument("--limit", type=kind_arg(LIMIT), help="at most this many units or slots (default 100)")
    p.add_argument("--json", action="store_true", help="JSON Lines (one unit or slot per line); --slot and "
                   "--summary: one document")
    add_format_args(p, rows="one a unit or, with --wheel, a slot (the --json lines)")

    p = sub.add_parser("tui", help="the terminal UI (what a bare `rmq-inspect STORE` opens)")
    _store_args(p)
    p.add_argument("--utc", dest="sub_utc", action="store_true", help=UTC_HELP + " (also: rmq-inspect --utc tui)")
    p.add_argument("--compare", metavar="B", help="a second store: open on the Diff screen comparing the two (as "
                   "`rmq-inspect diff STORE B`)")
    p.add_argument("--goto", metavar="REF", help="open this message over the first screen: a physical offset "
                   "(14924, 14,924, 0x3a4c), an offset msgId or a UNIQ_KEY, found as `show` finds it")
    p.add_argument("--screen", metavar="NAME", help="the first screen: overview (default), hex, messages, chain, "
                   "ids, problems, tour, exercises, timer, story, groups, search, stats, diff, salvage")
    p.add_argument("--key", nargs=2, metavar=("TOPIC", "KEY"), help="the index-chain screen walking TOPIC#KEY")
    p.add_argument("--file", metavar="PATH", help="the hex screen over this consume-queue, batch consume-queue or "
                   "index file (relative to the store root or absolute inside it), its units, header, slots and "
                   "items named")

    p = sub.add_parser("serve-tui", help="the terminal UI in a browser on http://127.0.0.1:8000 (textual-serve: "
                       "each tab runs its own `tui STORE`)")
    _store_args(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; any other prints a "
                   "warning: no token is asked)")
    p.add_argument("--port", type=kind_arg(PORT), default=8000)

    p = sub.add_parser("web", help="the web viewer on http://127.0.0.1:8080 (read-only)")
    _store_args(p)
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only; any other prints a warning)")
    p.add_argument("--port", type=kind_arg(PORT), default=8080)
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a host name clients use to reach a viewer bound elsewhere (repeatable); requests naming "
                        "any other host are refused (DNS rebinding). On loopback only loopback names are answered")
    p.add_argument("--token", default=os.environ.get("RMQ_INSPECT_TOKEN"), metavar="VALUE",
                   help="the token a browser or client must give (default: $RMQ_INSPECT_TOKEN, or a random one when "
                        "bound to anything but loopback; printed in the URL at start)")
    p.add_argument("--no-token", action="store_true",
                   help="bound to anything but loopback, ask no token (prints a loud warning: anyone who reaches "
                        "the port reads every message body)")
    p.add_argument("--dev-server", action="store_true",
                   help="serve on werkzeug's development server instead of waitress (debugging only)")
    p.add_argument("--workshop", action="store_true",
                   help="a workshop room: the trainer's browser (the trainer URL printed at start) drives the tour "
                        "on every participant's page and sees a live, anonymous tally of the exercises")
    p.add_argument("--trainer-token", default=os.environ.get("RMQ_INSPECT_TRAINER_TOKEN"), metavar="VALUE",
                   help="with --workshop: the trainer's token (default: $RMQ_INSPECT_TRAINER_TOKEN, or a random one; "
                        "printed in the trainer URL at start)")
    p.add_argument("--compare", metavar="B", help="a second store to compare with this one (the /diff page: as "
                   "`rmq-inspect diff STORE B`)")
    p.add_argument("--utc", dest="sub_utc", action="store_true", help=UTC_HELP)

    p = sub.add_parser("spark", help="bulk jobs on Apache Spark: export, stats, verify, keyindex, rebuild-cq",
                       add_help=False)
    p.add_argument("spark_args", nargs=argparse.REMAINDER, help="a job and its arguments; see `rmq-inspect spark --help`")

    p = sub.add_parser("write", help="write a new store from JSON Lines messages, laid out as a broker would")
    p.add_argument("out", help="new store directory (must not exist or be empty)")
    p.add_argument("input", nargs="?", help="JSON Lines file (default: standard input)")
    _geometry_args(p)
    p.add_argument("--store-host", default="127.0.0.1:10911")
    p.add_argument("--producer-ip", default="127.0.0.1")
    p.add_argument("--consumer-offsets", help='JSON file {"topic@group": {"0": 5, ...}} for consumerOffset.json (lmqConsumerOffset.json when a message has lmq_queues: an enableLmq broker keeps every offset there, a %%LMQ%% group in lmqOffsetTable)')
    p.add_argument("--batch-topic", action="append", default=[], metavar="TOPIC",
                   help="a 5.x BatchCQ topic (queue.type=BatchCQ in topics.json; its units go to batchconsumequeue/, "
                        'and a message with "batch": [...] is one inner-batch record); repeatable')
    p.add_argument("--keep-offsets", action="store_true",
                   help="lines `messages --json` printed keep their physical and queue offsets (the log and each "
                        "queue must then be contiguous: a gap is refused, never filled)")
    p.add_argument("--timer-now", type=kind_arg(TIME_MS), metavar="MS",
                   help='the timer store\'s "now" (epoch ms) for messages with "deliver_ms": timers due before it '
                        "are delivered into their topics, the rest stay pending (default: the last store time)")
    d = p.add_argument_group("DLedger (a Raft-replicated commitlog, enableDLegerCommitLog=true)")
    d.add_argument("--dledger", action="store_true",
                   help="write dledger-<id>/data/ entries (48-byte header + record) instead of commitlog/ segments")
    d.add_argument("--dledger-self-id", default="n0", metavar="ID", help="dLegerSelfId (default: %(default)s)")
    d.add_argument("--pre-dledger", type=kind_arg(PRE_DLEDGER), default=0, metavar="N",
                   help="the first N records go to commitlog/, written before DLedger was switched on")
    d.add_argument("--dledger-term", action="append", default=[], metavar="INDEX:TERM",
                   help="a leader change: the entry with this Raft index starts this term (repeatable; "
                        "default: every entry in term 1)")
    d.add_argument("--dledger-index-file-size", type=kind_arg(DLEDGER_INDEX_FILE_SIZE), metavar="BYTES",
                   help="bytes per dledger index/ file (default: DLedger's 32 x 5,242,880)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("rebuild", help="rebuild consume queues and index files from the commitlog")
    _store_args(p)
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", help="new directory for the rebuilt consumequeue/ and index/")
    where.add_argument("--in-place", action="store_true",
                       help="replace the store's own consumequeue/ and index/ (old ones kept as a backup)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("verify", help="check every record and every cross-file reference; exit 4 on problems")
    _store_args(p)
    p.add_argument("--json", action="store_true")
    add_format_args(p, rows="one a finding (--json's problems)", document=True)

    p = sub.add_parser("preflight", help="what the next broker start will do and cut (read-only); exit 4 when it "
                       "loses data or would not start")
    _store_args(p)
    p.add_argument("--json", action="store_true")

    from inspector.cli import workshop_args  # tour, exercises, templates

    workshop_args.add_parsers(sub, _store_args, _int)
    return parser


def _geometry_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("geometry (defaults: the broker's)")
    geometry_options(g)
    _config_options(g)


def _open(args) -> Store:
    from inspector.engine import open_store

    # exit 2 with where the store is: never "clean, 0 problems" on a wrong folder
    return open_store(args.store, broker_config=getattr(args, "broker_config", None),
                      segment_size=args.segment_size, cq_file_size=args.cq_file_size, index_slots=args.index_slots,
                      index_items=args.index_items, delay_levels=getattr(args, "delay_levels", None),
                      dledger_member=getattr(args, "dledger_member", None))


# The listing each command's --format / -o writes: None, its --json is JSON Lines (each line a row); else the key
# of the list in its --json document (info: the one --rows names). README "Output formats" lists the choices.
ROWS = {"messages": None, "grep": None, "timer": None, "key": "messages", "chain": "files", "groups": "groups",
        "group": "queues", "census": "kinds", "verify": "problems", "story": "records", "trace": "records",
        "info": "segments", "stats": "rows"}
INFO_ROWS = ("segments", "topics", "index_files", "consumer_groups", "settings", "problems")


@contextmanager
def _routing(args: argparse.Namespace) -> Iterator[None]:
    """The command's --json, routed to the RowWriter its --format / -o asks for (formats.route). Nothing for the
    table, nor for --json (or --format json, and jsonl of a JSON Lines command) on stdout: today's bytes."""
    if args.command not in ROWS:
        yield
        return
    fmt = chosen_format(args)
    key = args.rows if args.command == "info" else ROWS[args.command]
    if args.command == "messages" and args.follow and (fmt not in ("table", "json") or args.output):
        raise BadInput("--follow prints the table or --json; it does not take --format or -o")
    if args.command == "timer" and (args.slot is not None or args.summary) and fmt != "table" and (
            fmt != "json" or args.output):
        raise BadInput("timer --slot and --summary print a table or --json; --format and -o list units or --wheel")
    args.json = fmt != "table"  # the command prints its --json; the route below turns it into the format
    if fmt == "table" or (not args.output and (fmt == "json" or (fmt == "jsonl" and key is None))):
        yield
        return
    from inspector.cli.formats import route, rows

    with rows(fmt, args.output, args.store, args.force) as writer, route(writer, key):
        yield


def _diff(args: argparse.Namespace) -> int:
    """diff's exit codes follow cmp and diff (1 = differences), so a path that is no store is exit 3, not 2."""
    from inspector.cli import diff
    from inspector.engine import open_store, store_input_problem

    # a --broker-config may keep A's commitlog elsewhere: then open_store is A's check
    for path in (args.store, args.other) if not args.broker_config else (args.other,):
        try:
            why = store_input_problem(path, None) if os.path.isdir(path) else "no such directory"
        except BadInput as e:  # no such folder: for diff, too, "not a store"
            raise StoreError(str(e)) from None
        if why:
            raise StoreError(why if path in why else f"{path}: {why}")
    with _open(args) as a, open_store(args.other) as b:
        return diff.run(a, b, args.json, args.limit)


def _salvage(args: argparse.Namespace) -> int:
    """salvage opens a second store (the replica) only when given; a replica that is no store is exit 3."""
    import contextlib

    from inspector.cli import salvage
    from inspector.engine import open_store

    with contextlib.ExitStack() as opened:
        store = opened.enter_context(_open(args))
        replica = None
        if args.from_replica:
            try:  # a replica that is no store (or no folder) is exit 3, as diff's B
                replica = opened.enter_context(open_store(args.from_replica))
            except BadInput as e:
                raise StoreError(str(e)) from None
        return salvage.run(store, replica, args)


def run(args: argparse.Namespace) -> int:
    with _routing(args):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.command == "decode-id":
        from inspector.cli import ids
        from inspector.engine import open_store

        if (args.broker_config or args.dledger_member) and not args.store:
            raise BadInput(f"{'--broker-config' if args.broker_config else '--dledger-member'} goes with --store")
        store = (open_store(args.store, broker_config=args.broker_config, dledger_member=args.dledger_member)
                 if args.store else None)
        return ids.run(args.id, store, args.json)
    if args.command == "spark":
        from inspector.spark.cli import main as spark_main  # imports pyspark only here

        return spark_main(args.spark_args)
    if args.command == "write":
        from inspector.cli import maintenance

        return maintenance.run_write(args)
    if args.command in ("tour", "exercises", "templates"):
        from inspector.cli import workshop

        return workshop.run(args, _open)
    if args.command == "key" and args.keyindex:
        from inspector.cli import index

        return index.run_key_index(args.keyindex, args.store, args.topic, args.key, *_key_window(args), args.json)
    if args.store is None:
        raise BadInput("give a STORE (or, for key, --keyindex DIR)")
    if args.command == "census":  # the store is not opened: a census only lists and stats
        from inspector.cli import census
        from inspector.engine import store_config

        config = store_config(args.store, args.broker_config)
        return census.run(args.store, args.json, config, args.dledger_member)
    if args.command == "diff":
        return _diff(args)
    if args.command == "salvage":
        return _salvage(args)
    if args.command == "offsets":
        _check_offsets_out(args)
    if args.command == "tui":
        _check_screen(args.screen)
    if args.command == "serve-tui":
        from inspector.cli import servetui

        with _open(args):  # a path that is no store: the one-line error now, not in every browser tab
            pass
        return servetui.run(args.store, _opening_options(args), bool(args.utc), args.host, args.port)
    with _open(args) as store:
        if args.command == "offsets":
            from inspector.cli import offsets

            return offsets.run_plan(store, args)
        if args.command == "tui":
            from inspector.engine import open_store
            from inspector.tui.app import run as run_tui  # Textual only for this command
            from inspector.tui.copyout import Launch

            launch = Launch(args.store, tuple(_opening_options(args)), bool(args.utc or args.sub_utc))
            options = {"screen": getattr(args, "screen", None) or "overview", "goto": getattr(args, "goto", None),
                       "key": tuple(args.key) if getattr(args, "key", None) else None,
                       "file": getattr(args, "file", None),
                       "reopen": lambda: _open(args)}  # the reload key: the store opened again, same options
            if not getattr(args, "compare", None):  # (the bare `rmq-inspect STORE` form has no --compare)
                return run_tui(store, launch, **options)
            with open_store(args.compare) as other:
                return run_tui(store, launch, compare=other, **options)
        if args.command == "web":
            import contextlib

            from inspector.engine import open_store
            from web.app import serve  # Flask only for this command: the terminal UI never loads it

            with contextlib.ExitStack() as opened:
                other = opened.enter_context(open_store(args.compare)) if args.compare else None
                return serve(store, host=args.host, port=args.port, allow_hosts=tuple(args.allow_host),
                             dev_server=args.dev_server, token=args.token, no_token=args.no_token,
                             workshop=args.workshop, trainer_token=args.trainer_token, compare=other)
        if args.command in ("rebuild", "verify"):
            from inspector.cli import maintenance

            return (maintenance.run_rebuild if args.command == "rebuild" else maintenance.run_verify)(store, args)
        if args.command == "preflight":
            from inspector.cli import preflight

            return preflight.run(store, args.json)
        if args.command == "info":
            from inspector.cli import info

            return info.run(store, args.json)
        if args.command == "messages":
            from inspector.cli import messages

            check_window(args.since, args.until)
            if args.follow:
                if args.queue is not None:
                    raise BadInput("--follow walks the commitlog; it does not take --queue")
                if args.since is not None or args.until is not None:
                    raise BadInput("--follow prints what is written from now on; it does not take --since or --until")
                return messages.run_follow(store, args.topic, args.start, args.limit, args.json, args.decompress,
                                           args.idle_timeout)
            limit = 100 if args.limit is None else args.limit
            return messages.run_messages(store, args.topic, args.queue, args.start, limit, args.json, args.decompress,
                                         since=args.since, until=args.until)
        if args.command == "show":
            from inspector.cli import messages

            return messages.run_show(store, args.ref, args.json, args.decompress, args.raw,
                                     args.body_limit or messages.BODY_LIMIT, args.scan, args.budget)
        if args.command == "trace":
            from inspector.cli import trace

            return trace.run_trace(store, args.ref, args.trace_topic, args.json)
        if args.command == "story":
            from inspector.cli import story

            return story.run_story(store, args.ref, args.key, args.scan, args.trace_topic, args.json, args.budget)

        if args.command == "grep":
            from inspector.cli import grep

            check_window(args.since, args.until)
            return grep.run(store, args.pattern, fixed=args.fixed, ignore_case=args.ignore_case, fields=args.fields,
                            topic=args.topic, tag=args.tag, limit=args.limit, as_json=args.json,
                            since=args.since, until=args.until)

        if args.command == "stats":
            from inspector.cli import stats

            check_window(args.since, args.until)
            return stats.run(store, args.by, args.json, since=args.since, until=args.until)

        if args.command in ("groups", "group"):
            from inspector.cli import groups

            if args.command == "groups":
                return groups.run_groups(store, args.json)
            return groups.run_group(store, args.group, 20 if args.limit is None else args.limit, args.json)
        if args.command == "key":
            from inspector.cli import index

            return index.run_key(store, args.topic, args.key, *_key_window(args), args.json, args.scan,
                                 args.budget)
        if args.command == "chain":
            from inspector.cli import index

            return index.run_chain(store, args.topic, args.key, args.json)
        if args.command == "timer":
            from inspector.cli import timer

            return timer.run(store, args)
        if args.command == "hex":
            from inspector.cli import hexdump

            return hexdump.run(store, args.offset, args.length, args.json)
    raise BadInput(f"unknown command {args.command}")


def _check_screen(name: str | None) -> None:
    """``tui --screen``: a name the UI has (exit 2 before the store is read or Textual loads)."""
    from inspector.tui.screennames import SCREEN_NAMES  # a plain tuple: Textual is not loaded for it

    if name is not None and name not in SCREEN_NAMES:
        raise BadInput(f"--screen {name}: no such screen; one of {', '.join(SCREEN_NAMES)}")


def _opening_options(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The store-opening options given (geometry, --broker-config, --delay-levels, --dledger-member) as (flag,
    value): read off the very option definitions that parsed them, so one added there is carried too."""
    probe = argparse.ArgumentParser(add_help=False)
    group = probe.add_argument_group()
    geometry_options(group)
    _config_options(group)
    _member_option(group)
    return [(a.option_strings[-1], str(value)) for a in probe._actions
            if (value := getattr(args, a.dest, None)) is not None]


def _check_offsets_out(args: argparse.Namespace) -> None:
    """``offsets plan``'s --out and --force, checked before the store is read (formats.check_output)."""
    if args.force and not args.out:
        raise BadInput("--force goes with --out FILE")
    if args.queue is not None and args.topic is None:
        raise BadInput("--queue goes with --topic")
    if args.out:
        from inspector.cli.formats import check_output

        check_output(args.out, args.store, args.force, "--out")
def _key_window(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """key's window as [since, until): --end (inclusive, ms) is --until one ms later; not both."""
    if args.end is not None and args.until is not None:
        raise BadInput("give --until (exclusive) or --end (inclusive), not both")
    until = args.until if args.end is None else args.end + 1
    check_window(args.since, until)
    return args.since, until


def _tui_available() -> bool:
    if not sys.stdout.isatty():
        return False
    import importlib.util

    try:
        return importlib.util.find_spec("inspector.tui.app") is not None
    except ModuleNotFoundError:
        return False


def main(argv: Sequence[str] | None = None) -> int:
    keep_heap_top()
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _the_parser()
    utc = bool(argv) and argv[0] == "--utc"  # the global flag before the bare form or `spark`
    if utc:
        argv = argv[1:]
    from inspector.engine import set_utc

    set_utc(utc)  # before parsing: --since/--until read a naive ISO time in the output zone
    if argv and argv[0] not in SUBCOMMANDS and not argv[0].startswith("-"):
        argv = ["tui" if _tui_available() else "info", *argv]  # bare `rmq-inspect STORE`
    if not argv:
        parser.print_help()
        return EXIT_BAD_INPUT
    if argv[0] == "spark":  # the Spark dispatcher owns everything after `spark`, its -h/--help included
        args = argparse.Namespace(command="spark", spark_args=argv[1:], utc=utc)
    else:
        try:
            args = parser.parse_args(["--utc", *argv] if utc else argv)
        except SystemExit as e:  # --help/--version (0) or a usage error (2): return the code instead of exiting
            return e.code if isinstance(e.code, int) else EXIT_BAD_INPUT
    set_utc(args.utc or getattr(args, "sub_utc", False))  # every shown time, and naive ISO input, in this zone
    try:
        return run(args)
    # the one-line errors name store files and quote store text and arguments: escaped like every other line
    except StoreError as e:  # the engine's error, its documented exit code (exit_code: 1, 2 or 3)
        what = f"not found: {e}" if isinstance(e, NotFound) else str(e)
        sys.stderr.write(f"rmq-inspect: {terminal_text(what)}\n")
        return exit_code(e)
    except BrokenPipeError:  # `rmq-inspect messages ... | head`
        sys.stderr.close()
        return EXIT_OK
    except OSError as e:  # the last net: a file the engine did not wrap (one line naming it, never a traceback)
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        sys.stderr.write(f"rmq-inspect: {terminal_text(f'{where}{e.strerror or e}')}\n")
        return EXIT_STORE_ERROR
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
