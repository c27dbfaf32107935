"""Fuzzing every file kind the engine reads with structured mutations (issue 22, item 4).

Each example mutates one field of one structure of a copy of ``sample_store/`` (store_mutations.py: record
fields and lengths, consume-queue units, index headers, slots and items, the checkpoint, config JSON, file and
folder names; and, in the second test, the DLedger sample, a writer-made timer store and an LMQ store: see
store_mutations.new_store_mutations), then runs the commands a user would (verify, info, messages, show, key,
chain, hex, census, timer and timer --wheel / --slot / --summary) in-process and
asserts: nothing escapes ``main()`` and no output holds a traceback, every exit code is in the documented
table, the store is byte-for-byte what it was before the commands ran, and, when the mutation breaks an
invariant, ``verify --json`` names the damaged file and offset.

Classes of failure already named in issue 22 are let through by fuzz_known_bugs.triage (and counted); any
other failure fails. CI runs a small deterministic set (``RMQ_FUZZ_EXAMPLES`` unset), every command on each
example; a long run (``RMQ_FUZZ_EXAMPLES=N``, half of N to each test) runs verify and one or two drawn commands
per example (COMMAND_PICKS); its command and figures: README, Testing. Every example that ever failed is kept
below as an ``@example``.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from fuzz_known_bugs import MET, triage
from fuzz_support import Symptom, changed, fingerprint, run_cli
from hypothesis import event, example, given
from hypothesis import strategies as st
from store_mutations import (
    Expect,
    Layout,
    Mutation,
    copy_store,
    mutations,
    new_store_mutations,
    reuse_copy,
)
from test_fuzz_store import LONG_RUN, fuzz_settings, watchdog

pytestmark = [pytest.mark.timeout(0 if LONG_RUN else 600),  # 0: a long run is bounded by its caller
              pytest.mark.usefixtures("compiled_kernels")]


def findings_of(verify_out: str) -> list[tuple[str, int]]:
    try:
        report = json.loads(verify_out)
    except ValueError:
        return []
    return [(p["file"], p["offset"]) for p in report.get("problems", [])]


NO_SUCH_ID = "7F00000100002A9F00000000000000FF"  # an offset msgId of another broker: no message of these stores


def workload(root: Path, lay: Layout, mutation: Mutation) -> list[list[str]]:
    rec = lay.records[mutation.pick % len(lay.records)]
    offset = str(int(rec.file.rsplit("/", 1)[1]) + rec.position)  # the record the mutation aimed at (or near)
    unit_file = lay.units[mutation.pick % len(lay.units)][0]
    topic, queue = unit_file.split("/")[1:3]
    s = str(root)
    slot = str(lay.wheel_slots[mutation.pick % len(lay.wheel_slots)] % 1_209_600 if lay.wheel_slots else 0)
    lmq = [["messages", s, "--topic", "%LMQ%x", "--queue", "0", "--json"]] if lay.lmq_units else []
    # the newer commands (issue 35): story and trace by the aimed record's offset, offset msgId and UNIQ_KEY, and
    # an id no message has (the index and the trace topics are still searched); preflight reads every file; the
    # consumer groups from config/ and their lag; grep over every segment (regex and fixed)
    msg_id, uniq = (rec.ids + (NO_SUCH_ID, NO_SUCH_ID))[:2]
    newer = [["story", s, offset, "--json"], ["story", s, msg_id], ["story", s, uniq, "--no-scan", "--json"],
             ["trace", s, msg_id, "--json"], ["story", s, NO_SUCH_ID], ["preflight", s, "--json"],
             ["groups", s, "--json"], ["group", s, "billing-consumer"], ["grep", s, "order-1[0-9]+", "--json"],
             ["grep", s, "-F", "-i", "ORDER", "--in", "keys,body"], ["salvage", s, "--plan", "--json"]]
    return [
        *lmq,
        ["census", s],
        ["timer", s, "--json"],
        ["timer", s, "--wheel", "--json"],
        ["timer", s, "--slot", slot, "--json"],
        ["timer", s, "--summary", "--json"],
        ["info", s, "--json"],
        ["messages", s, "--limit", "500", "--json"],
        ["messages", s, "--topic", topic, "--queue", queue, "--limit", "100", "--json"],
        ["show", s, offset, "--decompress", "--json"],
        ["hex", s, offset, "--length", "96"],
        ["key", s, "OrderEvents", "order-1108"],
        ["chain", s, "OrderEvents", "order-1108", "--json"],
        *newer,
    ]


# A long run draws one or two commands of the workload per example (verify --json, the oracle, always runs): an
# example costs a fraction, and each command still meets every mutation thousands of times. CI's drawn examples
# run verify and two commands named by the mutation's own fields (DERIVED: nothing drawn, so the derandomized
# examples are the ones they were; ~0.1 s an example instead of ~0.5 s); every regression, replayed first, runs
# every command (``None``), so each command still meets each store in every run.
DERIVED = "derived"
COMMAND_PICKS = st.lists(st.integers(0, 1 << 10), min_size=1, max_size=2) if LONG_RUN else st.just(DERIVED)


def derived_picks(mutation: Mutation) -> list[int]:
    """Two commands for ``mutation`` (by index, modulo their count), the same in every run."""
    spread = zlib.crc32(repr(mutation).encode())
    return [spread, spread // 7 + mutation.pick]


def check_mutation(lay: Layout, scratch: Path, mutation: Mutation, picks: list[int] | None = None) -> list[Symptom]:
    """Every broken promise of one example (empty: all held)."""
    root = reuse_copy(lay.root, scratch / f"store-{mutation.store}")  # only what the last example changed is copied
    expect: Expect | None = mutation.apply(root, lay)
    before = fingerprint(root)
    symptoms: list[Symptom] = []
    verify = run_cli(["verify", str(root), "--json"])
    symptoms += verify.symptoms()
    argvs = workload(root, lay, mutation)
    if picks is not None:
        argvs = [argvs[k] for k in sorted({k % len(argvs) for k in picks})]
        for argv in argvs:
            event(f"command {argv[0]}")
    for argv in argvs:
        symptoms += run_cli(argv).symptoms()
    symptoms += changed(before, fingerprint(root))
    if expect is not None and verify.code is not None:
        found = findings_of(verify.out)
        if not expect.met_by(found):
            symptoms.append(Symptom("missing-finding", f"verify (exit {verify.code}) names no {expect}; "
                                    f"it found {sorted(found)[:4]}"))
    return symptoms


# Minimal examples of every class the fuzzer met on the code before issue 22's fixes (fuzz_known_bugs.py),
# and of every failure it has found since: replayed first, in every run.
REGRESSIONS = [
    Mutation("config", "huge-number-key", 1, 0),  # delayOffset.json: ValueError (4300 digits), info and verify
    Mutation("name", "commitlog", 0, 0),  # commitlog/99999999999999999999: OverflowError in the bulk kernels
    Mutation("record", "SYSFLAG", 7, 0x201),  # ZSTD on a plain JSON body: verify exit 0
    Mutation("cq", "offset", 0, -1),  # a negative unit: verify stops the queue and says nothing
    Mutation("cq", "size", 3, -1),
    Mutation("index-header", "indexCount", 0, -1),  # key lookups miss, verify says nothing
    Mutation("index-header", "hashSlotCount", 1, -1),
    Mutation("config", "top-level", 0, 0),  # consumerOffset.json is []: the offsets vanish silently
    Mutation("config", "top-level", 0, 1),  # ... null
    Mutation("name", "commitlog", 0, 2),  # commitlog/abc: skipped without a word
    Mutation("name", "consumequeue", 0, 0),  # consumequeue/TOPIC/abc
    Mutation("name", "index", 0, 0),  # index/notatime
    Mutation("cq", "size", 0, 0),  # the last unit of a queue (%DLQ%) with size 0: taken for the end, no finding
    Mutation("cq", "size", 5, -1),  # ... with a negative size (%RETRY%, unit 4 of 5)
    Mutation("checkpoint", "indexMsgTimestamp", 0, -1),  # a negative checkpoint time: verify exit 0
    Mutation("checkpoint", "indexMsgTimestamp", 0, (1 << 63) - 1),  # an index time far after every record
    Mutation("index-header", "beginTimestamp", 0, 5),  # before the first item's message: verify exit 0
    Mutation("index-header", "endTimestamp", 2, -1),  # and key lookups dated every item from the header
    Mutation("record", "SYSFLAG", 12259, 257),  # LZ4 on a 2-byte body: the decoder gave b"" without a word
    Mutation("record", "SYSFLAG", 19259, 46),  # born v6 -> v4, store v4 -> v6: widths even out (the oracle's case)
    Mutation("index-item", "phyOffset", 6850, 65536),  # the long run: an item moved to an earlier record with the
    # same key (customer-162): hash and link fine, verify exit 0; items go in log order (index-order)
    # issue 35: special files where a store file belongs (a FIFO, /dev/zero, a folder, /dev/urandom)
    Mutation("special", "cq", 0, 0),  # a FIFO for a queue file: skipped without a word
    Mutation("special", "cq", 3, 2),  # ... a folder
    Mutation("special", "segment", 0, 1),  # /dev/zero for a segment
    Mutation("special", "config", 0, 0),  # a FIFO for a config file
    Mutation("special", "config", 1, 3),  # /dev/urandom
    Mutation("special", "checkpoint", 0, 0),
    Mutation("special", "index", 0, 1),
]


def _replaying(regressions: list[Mutation]):
    def decorate(test):
        for m in reversed(regressions):
            test = example(mutation=m, picks=None)(test)  # each with every command
        return test
    return decorate


def _holds_every_promise(lay: Layout, scratch: Path, mutation: Mutation, picks: list[int] | str | None) -> None:
    if picks == DERIVED:
        picks = derived_picks(mutation)
    with watchdog():
        symptoms = check_mutation(lay, scratch, mutation, picks)
    unknown = triage(f"{mutation}", symptoms)
    assert not unknown, f"{mutation}: " + "; ".join(map(str, unknown))


@fuzz_settings(40, long_share=0.5)
@given(mutation=mutations(), picks=COMMAND_PICKS)
@_replaying(REGRESSIONS)
def test_every_mutation_is_reported_and_harmless(layout: Layout, scratch: Path, mutation: Mutation,
                                                 picks: list[int] | str | None) -> None:
    _holds_every_promise(layout, scratch, mutation, picks)


# The same for the stores of issues 18 and 19 (new_store_mutations: DLedger entries, end markers, index units,
# checkpoint and currterm; timer-log units and blank, wheel slots, timercheck, timermetrics; LMQ properties,
# %LMQ% units, lmqConsumerOffset.json) and issue 35 (every field of a batch consume-queue unit).
NEW_REGRESSIONS = [
    Mutation("dledger-index", "pos", 4096, (1 << 63) - 2, "dledger"),  # pos + 48 wrapped: a segfault in gather
    Mutation("timer-wheel", "firstPos", 0, 1, "timer"),  # a firstPos no chain ends at: verify exit 0
    Mutation("dledger-text", "checkpoint", 233, 3, "dledger"),  # endIndex of 5,000 digits: ValueError (int())
    Mutation("lmq-offset", "no-at", 0, 65536, "lmq"),  # an lmqOffsetTable key without '@': dropped silently
    Mutation("lmq-offset", "not-lmq", 0, 2387, "lmq"),  # TopicA@g there: overrode offsetTable's offset
    Mutation("timercheck", "lastTimerLogFlushPos", 318, -10211068668, "timer"),  # negative: verify exit 0
    Mutation("dledger-text", "checkpoint", 309, 15, "dledger"),  # committedIndex=-7: verify exit 0
    Mutation("dledger-text", "currterm", 1, 1, "dledger"),  # currTerm=-7: verify exit 0
    Mutation("timer-unit", "commitlogOffset", 7965, -(1 << 63) + 1, "timer"),  # taken for a cleaned-up record
    Mutation("timer-unit", "prevPos", 802, 0, "timer"),  # a broken link shows at its slot's firstPos and num
    Mutation("timer-wheel", "lastPos", 371, 0, "timer"),  # ... a lastPos into another slot's chain: at firstPos
    # issue 35: whole files
    Mutation("file", "timerlog-empty", 0, 0, "timer"),  # a 0-byte timerlog file: ZeroDivisionError everywhere
    Mutation("file", "data-rename", 0, 71, "dledger"),  # ...131072 -> ...131000: AttributeError in verify
    Mutation("file", "cq-length", 3, 16007, "sample"),  # 800 -> 16,007 bytes: the broker refuses, verify exit 0
    Mutation("file", "queue-type", 0, 0, "sample"),  # a plain topic marked BatchCQ: queueTypeShouldBe, exit 0
    Mutation("file", "lmq-gone", 0, 0, "lmq"),  # an %LMQ% queue deleted: verify exit 0
    Mutation("file", "lmq-last-zeroed", 1, 0, "lmq"),  # its last unit zeroed: verify exit 0
    Mutation("batch-cq", "msgBaseOffset", 1, (1 << 63) - 1, "batch"),  # issue 35.7: OverflowError in verify
]


@fuzz_settings(24, long_share=0.5)
@given(mutation=new_store_mutations(), picks=COMMAND_PICKS)
@_replaying(NEW_REGRESSIONS)
def test_every_new_structure_mutation_is_reported_and_harmless(layouts: dict[str, Layout], scratch: Path,
                                                               mutation: Mutation, picks: list[int] | str | None) -> None:
    event(f"store {mutation.store}")
    _holds_every_promise(layouts[mutation.store], scratch, mutation, picks)


# what a command documents it refuses on a kind of store (README): (command, store) -> (exit code, what its one
# line names); anything else a pristine store answers is 0 or 1
DOCUMENTED_REFUSALS = {("salvage", "dledger"): (2, "DLedger")}  # salvage writes a plain log (README "Salvage")


def refused_as_documented(command: str, store: str, run) -> bool:
    code, names = DOCUMENTED_REFUSALS.get((command, store), (None, ""))
    return run.code == code and names in run.err


@pytest.mark.parametrize("name", ["sample", "dledger", "timer", "lmq", "batch"])
def test_the_pristine_copy_holds_every_promise(layouts: dict[str, Layout], scratch: Path, name: str) -> None:
    """The oracle itself: no mutation, no symptom (a finding on the pristine store would mask everything)."""
    layout = layouts[name]
    root = copy_store(layout, scratch / "store")
    verify = run_cli(["verify", str(root), "--json"])
    assert verify.code == 0 and findings_of(verify.out) == []
    for argv in workload(root, layout, Mutation("cq", "offset", 0, 0)):
        run = run_cli(argv)
        assert (run.code in (0, 1) or refused_as_documented(argv[0], name, run)) and not run.symptoms(), \
            (argv, run.err)


def test_known_bug_summary() -> None:
    """Not a check: prints which known classes this run met (``-s`` to see it)."""
    print("\nissue-22 known classes met:", dict(MET) or "none")
