"""The generated section of ``sample_store/README.md`` and the checks behind it, read back from a finished store.

Every number, offset, id and command in that section comes from the store itself (through the engine's
read-only ``Store``); the scenario (``sample_store.toml``) gives only names and the facts the day recorded
(which message played which teaching case). Used by ``make_sample_store.py``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from inspector.engine import MAX_TIME, Store, decompress_body, expired_key_reason, preflight, verify
from parsers.java import index_key, index_key_hash, java_string_hash

BEGIN_MARK, END_MARK = "<!-- generated -->", "<!-- /generated -->"


def chain_lengths(store: Store) -> list[tuple[int, str, int, int]]:
    """(length, index file, slot, newest item) of every non-empty slot chain, longest first."""
    result = []
    for reader in store.index_files():
        for slot in range(reader.slot_count):
            value = reader.slot_value(slot) or 0
            n, number, seen = 0, value, set()
            while 0 < number < reader.effective_index_count and number not in seen:
                seen.add(number)
                n += 1
                item = reader.item(number)
                number = item.prev_index if item else 0
            if n:
                result.append((n, reader.name, slot, value))
    result.sort(key=lambda r: (-r[0], r[1], r[2]))
    return result


def key_of_item(store: Store, reader, number: int) -> tuple[str, str]:
    """(topic, key) of an index item, found by re-hashing the keys of the message it points at."""
    item = reader.item(number)
    msg = store.message_at(item.phy_offset)
    for key in [msg.unique_key, *msg.keys]:
        if key and index_key_hash(index_key(msg.topic, key)) == item.key_hash:
            return msg.topic, key
    raise AssertionError(f"item {number} of {reader.name} matches no key of its message")


def render_generated(root: Path, sc, facts) -> str:
    """The README section of the store at ``root``; ``sc``: the Scenario, ``facts``: the day's Facts."""
    with Store(root) as store:
        return _render(store, sc, facts, facts.results)


def _render(store: Store, sc, facts, r: dict) -> str:
    S = "sample_store"
    g, tz = sc["geometry"], sc.tz
    ORDER_TOPIC, PAYMENT_TOPIC, INVENTORY_TOPIC = sc.topics["orders"], sc.topics["payments"], sc.topics["inventory"]
    SCHEDULE_TOPIC, HALF_TOPIC, OP_TOPIC = sc.schedule_topic, sc.half_topic, sc.op_topic
    RETRY_TOPIC, DLQ_TOPIC, BILLING = sc.retry_topic, sc.dlq_topic, sc.groups["billing"]
    out: list[str] = []
    add = out.append
    scans = store.scans()
    messages = sum(s.messages for s in scans)
    add("## The store in numbers\n")
    add(f"Geometry (broker configuration, inferred by `rmq-inspect` from the file sizes): commitlog segments of "
        f"{g['segment_size']:,} bytes, consume-queue files of {sc.geometry.cq_file_size:,} bytes ({g['cq_units_per_file']} units), "
        f"index files of {g['index_slots']} slots x {g['index_items']} items.\n")
    add(f"{messages} commitlog records (message records, BLANKs not counted) from "
        f"{_utc(tz, scans[0].first_store_timestamp)} to {_utc(tz, scans[-1].last_store_timestamp)}, "
        f"physical offsets {store.min_offset} to {store.max_offset():,}.\n")
    add("| segment | start offset | records | BLANK at position | BLANK size | store times |")
    add("| --- | ---: | ---: | ---: | ---: | --- |")
    for s in scans:
        blank = (f"{s.blank_position:,} (phy {s.segment.start_offset + s.blank_position:,})", f"{s.blank_size:,}") \
            if s.blank_position is not None else ("- (ends in zeros)", "-")
        add(f"| `commitlog/{s.segment.name}` | {s.segment.start_offset:,} | {s.messages} | {blank[0]} | {blank[1]} | "
            f"{_hm(tz, s.first_store_timestamp)} - {_hm(tz, s.last_store_timestamp)} |")
    add("")

    add("### Topics and queues\n")
    add("| topic | queue | messages (min-max offset) | consume-queue files |")
    add("| --- | ---: | --- | --- |")
    for info in store.queue_infos():
        files = ", ".join(f"`{Path(f).name}`" for f in info.files)
        add(f"| `{info.topic}` | {info.queue_id} | {info.message_count} ({info.min_offset}-{info.max_offset}) | {files} |")
    add("")

    add("### Index files\n")
    add("| file | items | used slots | first / last store time | first / last physical offset |")
    add("| --- | ---: | ---: | --- | --- |")
    for reader in store.index_files():
        h = reader.header
        full = " (full)" if h.index_count >= reader.item_count else ""
        add(f"| `index/{reader.name}` | {h.index_count - 1}{full} | {h.hash_slot_count} | {_hm(tz, h.begin_timestamp)} / "
            f"{_hm(tz, h.end_timestamp)} | {h.begin_phy_offset:,} / {h.end_phy_offset:,} |")
    add("")
    cp = store.checkpoint()
    add(f"`checkpoint`: physicMsgTimestamp {_utc(tz, cp.physic_msg_timestamp)}, logicsMsgTimestamp "
        f"{_utc(tz, cp.logics_msg_timestamp)}, indexMsgTimestamp {_utc(tz, cp.index_msg_timestamp)} (end of the last full "
        f"index file). No `abort` file: the broker was shut down cleanly.\n")

    add("## Teaching cases\n")
    add("Commands are run from the repository root.\n")

    # overview
    add("### 1. Overview: segments, queues, consumers, index files\n")
    add(f"```\nrmq-inspect info {S}\n```\n")

    # BLANK
    first_blank = next(s for s in scans if s.blank_position is not None)
    bphy = first_blank.segment.start_offset + first_blank.blank_position
    last_before = _last_message_before(store, bphy)
    add("### 2. End of a segment: the BLANK record\n")
    add(f"Segment `{first_blank.segment.name}` ends with a {first_blank.blank_size:,}-byte BLANK at position "
        f"{first_blank.blank_position:,} (physical offset {bphy:,}): 8 bytes (`{first_blank.blank_size:08X}` + "
        f"`CBD43194`) and zeros after them. The last message of that segment starts at {last_before:,}; "
        f"the next record starts the next segment at {first_blank.segment.end_offset:,}.\n")
    add(f"```\nrmq-inspect hex {S} {bphy - 32} --length 64\nrmq-inspect messages {S} --from {last_before} --limit 2\n```\n")

    # article
    a1, a2 = r["article_1"], r["article_2"]
    first_reader = store.index_files()[0]
    items = [first_reader.item(n) for n in range(1, 7)]
    slots = [it.key_hash % first_reader.slot_count for it in items]
    add("### 3. The seed article's index example, for real\n")
    add(f"The first two messages (physical offsets {a1.physical_offset} and {a2.physical_offset}) were given keys "
        f"so that the first six items of `index/{first_reader.name}` land in slots "
        f"{', '.join(map(str, slots))} - the article's {{16,29,29,8,16,16}}:\n")
    add("| item | key string | keyHash | slot | prevIndex |")
    add("| ---: | --- | ---: | ---: | ---: |")
    for n, it in enumerate(items, 1):
        topic, key = key_of_item(store, first_reader, n)
        add(f"| {n} | `{topic}#{key}` | {it.key_hash} | {it.key_hash % first_reader.slot_count} | {it.prev_index} |")
    add("")
    add("So slot 29 holds the chain 3 -> 2 and slot 16 the chain 6 -> 5 -> 1 (later items of the same slots are "
        "prepended in front of them during the day):\n")
    add(f"```\nrmq-inspect chain {S} {ORDER_TOPIC} {facts.notes['article_customer']}\n"
        f"rmq-inspect chain {S} {INVENTORY_TOPIC} {facts.notes['article_skus'].split()[1]}\n```\n")

    # collision
    k0, k1 = sc.cases["collision_keys"]
    h0, h1 = java_string_hash(index_key(ORDER_TOPIC, k0)), java_string_hash(index_key(ORDER_TOPIC, k1))
    c0, c1 = r["collision-0"], r["collision-1"]
    add("### 4. A real hash collision\n")
    assert h0 == h1
    add(f"`{ORDER_TOPIC}#{k0}` and `{ORDER_TOPIC}#{k1}` are different strings with the same Java `hashCode()`, {h0} "
        f"(\"Aa\" and \"BB\" hash alike: 65 x 31 + 97 = 66 x 31 + 66), so their index items carry the same keyHash "
        f"{index_key_hash(index_key(ORDER_TOPIC, k0))} in slot {sc.slot_of(ORDER_TOPIC, k0)}. `{k0}` was used by {facts.notes['collision-0']} (physical offset "
        f"{c0.physical_offset}), `{k1}` by {facts.notes['collision-1']} (physical offset {c1.physical_offset}). "
        f"The broker's query compares only the hash and would return both; `key` reads the messages and filters, "
        f"`chain` shows the step marked \"hash collision\":\n")
    add(f"```\nrmq-inspect chain {S} {ORDER_TOPIC} {k0}\nrmq-inspect key {S} {ORDER_TOPIC} {k0}\n```\n")

    # longest chain
    chains = chain_lengths(store)
    length, fname, slot, newest = chains[0]
    reader = next(x for x in store.index_files() if x.name == fname)
    topic, key = key_of_item(store, reader, newest)
    add("### 5. The longest chain\n")
    add(f"Slot {slot} of `index/{fname}` chains {length} items (newest: item {newest}, key `{topic}#{key}`); "
        f"{sum(1 for c in chains if c[0] >= 5)} slot chains in all have 5 or more items. Keys with the same slot but "
        f"different hashes are skipped by the walk (\"other hash\").\n")
    add(f"```\nrmq-inspect chain {S} {topic} {key}\n```\n")
    order = facts.notes["article_order"]
    add(f"One business key, many messages: `{ORDER_TOPIC}#{order}` is the key of every event of that order "
        f"(created, paid, shipped ...), and the same key in another topic is a different index key:\n")
    add(f"```\nrmq-inspect key {S} {ORDER_TOPIC} {order}\nrmq-inspect key {S} {PAYMENT_TOPIC} {order}\n```\n")

    # delay
    d, dc = r["delayed"], r["delayed_delivered"]
    unit = next(u for u in store.queue(SCHEDULE_TOPIC, 2).units(0) if getattr(u, "physical_offset", None) == d.physical_offset)
    add("### 6. A delayed message (level 3 = 10 s)\n")
    add(f"order-service sent a `timeout-check` for {facts.notes['delayed_order']} with `DELAY=3`. The broker stored "
        f"it in `{SCHEDULE_TOPIC}` queue 2 (level - 1) at physical offset {d.physical_offset} (msgId `{d.msg_id}`), "
        f"with `REAL_TOPIC`/`REAL_QID`; its consume-queue unit (queue offset {unit.queue_offset}) has tagsCode "
        f"{unit.tags_code} = store time {d.store_timestamp} + 10,000 ms, not a tag hash. 10 s later "
        f"ScheduleMessageService wrote it again into `{ORDER_TOPIC}` queue {dc.queue_id} (physical offset "
        f"{dc.physical_offset}, same UNIQ_KEY `{dc.unique_key}`). `config/delayOffset.json`: "
        f"`{_delay_offsets(store)}`.\n")
    add(f"```\nrmq-inspect messages {S} --topic {SCHEDULE_TOPIC} --queue 2\nrmq-inspect show {S} {d.msg_id}\n"
        f"rmq-inspect show {S} {dc.unique_key}\n```\n")

    # transactions
    half, commit = r["tx-commit-half"], r["tx-commit"]
    rb_half, rb_op = r["tx-rollback-half"], r["tx-rollback"]
    add("### 7. Transactions: half, commit, op - and a rollback\n")
    add(f"{facts.notes['tx-commit-order']}: half message in `{HALF_TOPIC}` queue 0 at physical offset "
        f"{half.physical_offset} (queue offset {half.queue_offset}); the COMMIT record (sysFlag 0x8) in "
        f"`{ORDER_TOPIC}` queue {commit.queue_id} at {commit.physical_offset} carries preparedTransactionOffset "
        f"{half.physical_offset}; the op record in `{OP_TOPIC}` at {commit.op.physical_offset} has tag `d` and body "
        f"`{half.queue_offset},` (the half's queue offset).\n")
    add(f"{facts.notes['tx-rollback-order']} was rolled back: half at {rb_half.physical_offset} (queue offset "
        f"{rb_half.queue_offset}), op at {rb_op.physical_offset} with body `{rb_half.queue_offset},`, and no record "
        f"in `{ORDER_TOPIC}`.\n")
    add(f"```\nrmq-inspect messages {S} --topic {HALF_TOPIC} --queue 0\nrmq-inspect messages {S} --topic {OP_TOPIC} --queue 0\n"
        f"rmq-inspect show {S} {commit.physical_offset}\nrmq-inspect key {S} {HALF_TOPIC} {facts.notes['tx-rollback-order']}\n"
        f"rmq-inspect key {S} {ORDER_TOPIC} {facts.notes['tx-rollback-order']}    # exit code 1: not found\n```\n")

    # retry / DLQ
    dlq = r["dlq"]
    dlq_msg = store.message_at(dlq.physical_offset)
    captured = store.find(dlq_msg.properties["ORIGIN_MESSAGE_ID"])  # the original in PaymentEvents
    retries = [m for _u, m in store.queue_messages(RETRY_TOPIC, 0)]
    once = sorted({m.keys[-1] for m in retries if m.unique_key != captured.unique_key})
    add("### 8. Retries and the dead-letter queue\n")
    add(f"`{BILLING}` runs with maxReconsumeTimes {sc.groups['max_reconsume_times']}. It failed once on the `captured` events of "
        f"{' and '.join(once)}, and every time on the `{captured.tags}` event of {facts.notes['poison_order']}, whose "
        f"currency {json.loads(captured.body)['currency']} it cannot book "
        f"(`{PAYMENT_TOPIC}` queue {captured.queue_id}, physical offset {captured.physical_offset}, msgId "
        f"`{captured.msg_id}`). Each failure is a `consumerSendMsgBack`: the broker parks a copy in "
        f"`{SCHEDULE_TOPIC}` with delay level 3 + reconsumeTimes (queues 2, 3, 4 = 10 s, 30 s, 1 min) and "
        f"`REAL_TOPIC={RETRY_TOPIC}`, and delivers it to `{RETRY_TOPIC}` when due ({len(retries)} messages there, "
        f"reconsumeTimes {', '.join(str(m.reconsume_times) for m in retries)}), with `RETRY_TOPIC` and "
        f"`ORIGIN_MESSAGE_ID` added. The fourth failure sent it to `{DLQ_TOPIC}` (physical offset "
        f"{dlq.physical_offset}, reconsumeTimes {dlq_msg.reconsume_times}, ORIGIN_MESSAGE_ID = the original's "
        f"msgId). Every copy keeps the original body, keys, born host, born time and UNIQ_KEY "
        f"`{captured.unique_key}`.\n")
    pkey = captured.keys[-1]
    add(f"```\nrmq-inspect messages {S} --topic {RETRY_TOPIC} --queue 0\nrmq-inspect show {S} {dlq.msg_id}\n"
        f"rmq-inspect show {S} {captured.msg_id}\nrmq-inspect key {S} {SCHEDULE_TOPIC} {pkey}\n"
        f"rmq-inspect key {S} {DLQ_TOPIC} {pkey}\n```\n")

    # consumer lag
    add("### 9. Consumer groups and lag\n")
    add("`config/consumerOffset.json` (fastjson: integer queue ids are unquoted):\n")
    add("| group | topic | queue | committed offset | max offset | lag |")
    add("| --- | --- | ---: | ---: | ---: | ---: |")
    for row in store.consumer_lag():
        add(f"| `{row['group']}` | `{row['topic']}` | {row['queue_id']} | {row['consumer_offset']} | {row['max_offset']} | "
            f"{row['lag']} |")
    add("")
    add(f"```\nrmq-inspect info {S}\nrmq-inspect messages {S} --topic {INVENTORY_TOPIC} --queue 2 "
        f"--from {store.config.consumer_offsets[(INVENTORY_TOPIC, sc.groups['stock'])][2]}\n```\n")

    # ids and IPv6
    v6 = r["ipv6"]
    v6msg = store.message_at(v6.physical_offset)
    add("### 10. Message ids and an IPv6 producer\n")
    add(f"Every record has two ids. For the first message: offset msgId `{a1.msg_id}` (store host {sc['broker']['store_host']} + "
        f"physical offset {a1.physical_offset}) and UNIQ_KEY `{a1.unique_key}` (producer {sc['producers'][0]['ip']}, pid, class-loader "
        f"hash, ms since the start of the month, counter).\n")
    add(f"The warehouse gateway sends from `{v6msg.born_host}`: its record at {v6.physical_offset} has sysFlag "
        f"0x{v6msg.sys_flag:X} (BORNHOST_V6), a 20-byte born host, so the store timestamp sits at byte 68 instead of "
        f"56; its UNIQ_KEY is 56 hex characters: `{v6.unique_key}`.\n")
    add(f"```\nrmq-inspect decode-id {a1.msg_id} --store {S}\nrmq-inspect decode-id {a1.unique_key} --store {S}\n"
        f"rmq-inspect show {S} {v6.msg_id}\nrmq-inspect hex {S} {v6.physical_offset} --length 96\n"
        f"rmq-inspect decode-id {v6.unique_key}\n```\n")

    # compression
    add("### 11. Compressed bodies\n")
    add("| codec | producer | topic / tag | physical offset | stored body | decompressed | sysFlag |")
    add("| --- | --- | --- | ---: | ---: | ---: | --- |")
    producers = {one_off["case"]: one_off["producer"] for one_off in sc["one_offs"]}
    for name in ("zlib", "lz4", "zstd"):
        res, producer = r[name], producers[name]
        msg = store.message_at(res.physical_offset)
        add(f"| {msg.compression} | {producer} | `{msg.topic}` / `{msg.tags}` | {res.physical_offset} | {len(msg.body):,} B | "
            f"{len(decompress_body(msg)):,} B | 0x{msg.sys_flag:X} |")
    add("")
    add(f"```\nrmq-inspect show {S} {r['zlib'].physical_offset}\nrmq-inspect show {S} {r['zlib'].physical_offset} --decompress\n"
        f"rmq-inspect messages {S} --topic {INVENTORY_TOPIC} --decompress --json --from {r['zstd'].physical_offset} --limit 1\n```\n")
    return "\n".join(out).rstrip() + "\n"


def _delay_offsets(store: Store) -> str:
    return "{" + ",".join(f"{k}:{v}" for k, v in sorted(store.config.delay_offsets.items())) + "}"


def _last_message_before(store: Store, offset: int) -> int:
    last = 0
    for entry in store.entries():
        pos = getattr(entry, "physical_offset", None)
        if pos is None or pos >= offset:
            break
        last = pos
    return last


def _utc(tz: dt.tzinfo, ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, tz).strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d} UTC"


def _hm(tz: dt.tzinfo, ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, tz).strftime("%H:%M:%S")


# --- the aged sample ---------------------------------------------------------------------------------------


def expired_key(store: Store, facts) -> tuple[str, str, str]:
    """(topic, key, answer) of the first key sent that day whose every record retention removed while an index
    item of it is left (in a straddling index file): the lookup answers "expired", not "no message"."""
    for _index, spec in sorted(facts.sent.items()):
        for key in spec.keys:
            if not store.lookup_key(spec.topic, key, 0, MAX_TIME):
                reason = expired_key_reason(store, spec.topic, key)
                if reason:
                    return spec.topic, key, reason
    raise AssertionError("no key of the day answers expired")


def below_min(store: Store) -> list[dict]:
    """Consumer-offset rows below their queue's min offset (the broker corrects them)."""
    return [row for row in store.consumer_lag() if row["max_offset"] is not None
            and 0 <= row["consumer_offset"] < store.queue(row["topic"], row["queue_id"]).info().min_offset]


def render_aged(root: Path, sc, facts) -> str:
    """The README section of the aged sample at ``root`` (``sample_store_aged/``): what the writer's aging did
    (``facts.aged``) and what rmq-inspect answers on it, each figure read back from the store."""
    with Store(root) as store:
        return _render_aged(store, sc, facts, verify(store), preflight(store))


def _render_aged(store: Store, sc, facts, report, plan) -> str:
    S, tz, aged, a = "sample_store_aged", sc.tz, facts.aged, sc["aging"]
    g = sc["geometry"]
    out: list[str] = []
    add = out.append
    scans = store.scans()
    add("## How it was made\n")
    add(f"The day of `sample_store/` (`scripts/sample_store.toml`) with smaller files (segments of "
        f"{g['segment_size']:,} bytes, consume-queue files of {g['cq_units_per_file']} units, index files of "
        f"{g['index_slots']} slots x {g['index_items']} items), then aged by the writer as "
        f"`scripts/sample_store_aged.toml` says: `python scripts/make_sample_store.py --aged`.\n")
    add(f"- **Retention** at {_utc(tz, int(a['retention_now'].timestamp()) * 1000)} with fileReservedTime "
        f"{a['file_reserved_hours']} h: every head segment last written before {_utc(tz, aged.expired_before)} "
        f"was deleted ({', '.join(f'`commitlog/{n}`' for n in aged.deleted_segments)}); the log's first offset is "
        f"now {aged.first_offset:,}.")
    add(f"- **The broker's cleanup** then deleted {len(aged.deleted_cq)} consume-queue files and "
        f"{len(aged.deleted_index)} index files wholly below it "
        f"({', '.join(f'`{f}`' for f in aged.deleted_index)}); the files straddling it stay, with their units and "
        "items below it (expired: the broker skips them).")
    add(f"- **A crash**: the `abort` file stays, and the checkpoint's indexMsgTimestamp "
        f"({_utc(tz, store.checkpoint().index_msg_timestamp)}) is the end of the last full index file, so the next "
        "start is abnormal and destroys the newest index file.")
    rows = below_min(store)
    groups = sorted({(r['group'], r['topic']) for r in rows})
    add(f"- **A group that stopped early**: {', '.join(f'`{g_}` on `{t}`' for g_, t in groups)}, offsets "
        "below its queues' min offsets.\n")

    add("## What rmq-inspect says\n")
    info = [p for p in report.problems if p.severity == "info"]
    by_code: dict[str, int] = {}
    for p in info:
        by_code[p.code] = by_code.get(p.code, 0) + 1
    add(f"`verify` checks {report.messages} records, {report.cq_units} consume-queue units and "
        f"{report.index_items} index items: no errors, no warnings, {len(info)} info findings "
        f"({', '.join(f'{n} `{c}`' for c, n in sorted(by_code.items()))}); exit code 0.\n")
    cq = [p for p in info if p.code == "cq-expired"]
    units = sum(int(p.reason.split(" ", 1)[0]) for p in cq)
    add(f"Expired consume-queue units: {units} in {len(cq)} files. Expired index items: "
        + ", ".join(f"{p.reason.split(' ', 1)[0]} in `{p.file}`" for p in info if p.code == "index-expired") + ".\n")
    add("| group | topic | queue | offset | queue's min offset |")
    add("| --- | --- | ---: | ---: | ---: |")
    for r in rows:
        add(f"| `{r['group']}` | `{r['topic']}` | {r['queue_id']} | {r['consumer_offset']} | "
            f"{store.queue(r['topic'], r['queue_id']).info().min_offset} |")
    add("")
    first = facts.results["article_1"]
    topic, key, _ = expired_key(store, facts)
    cut = plan.index_cuts[0]
    add(f"The day's first message (offset msgId `{first.msg_id}`, physical offset {first.physical_offset}) and the "
        f"key `{topic}#{key}` answer *expired* (exit code 1), not \"no message\". `preflight` says the next start "
        f"is {plan.mode} and destroys `{cut.file}` ({cut.items} items, {cut.lost_keys} keys unfindable "
        f"afterwards); exit code {plan.exit_code}.\n")
    add(f"```\nrmq-inspect info {S}\nrmq-inspect verify {S}\n"
        f"rmq-inspect show {S} {first.msg_id}    # exit code 1: expired\n"
        f"rmq-inspect key {S} {topic} {key}    # exit code 1: expired\n"
        f"rmq-inspect preflight {S}    # exit code {plan.exit_code}: an abnormal start that loses index keys\n```\n")
    add("| segment | start offset | records | store times |")
    add("| --- | ---: | ---: | --- |")
    for sc_ in scans:
        add(f"| `commitlog/{sc_.segment.name}` | {sc_.segment.start_offset:,} | {sc_.messages} | "
            f"{_hm(tz, sc_.first_store_timestamp)} - {_hm(tz, sc_.last_store_timestamp)} |")
    return "\n".join(out).rstrip() + "\n"


def check_aged(root: Path, sc) -> None:
    """Fail loudly if the aged store does not show what its README promises."""
    with Store(root) as store:
        report = verify(store)
        assert not [p for p in report.problems if p.severity != "info"], "verify finds more than info"
        codes = {p.code for p in report.problems}
        assert {"cq-expired", "index-expired", "consumer-offset-expired"} <= codes, codes
        assert store.min_offset > 0 and store.abort_exists
        plan = preflight(store)
        assert plan.mode == "abnormal" and plan.index_cuts, "preflight destroys no index file"
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        assert size < 1 << 20, f"store is {size} bytes"


# --- self-checks ---------------------------------------------------------------------------------------------


def check(root: Path, sc) -> None:
    """Fail loudly if the day did not produce what the README promises."""
    store = Store(root)
    try:
        scans = store.scans()
        assert len(scans) >= 3, f"only {len(scans)} segments"
        assert sum(s.blank_position is not None for s in scans) >= 2, "fewer than two BLANKs"
        assert not any(s.problems for s in scans) and not store.problems(), "the store has problems"
        readers = store.index_files()
        assert len(readers) >= 2 and readers[0].header.index_count >= readers[0].item_count
        first = readers[0]
        slots = tuple(first.item(n).key_hash % first.slot_count for n in range(1, 7))
        assert list(slots) == sc["article"]["slots"], slots
        k0, k1 = sc.cases["collision_keys"]
        orders = sc.topics["orders"]
        assert java_string_hash(index_key(orders, k0)) == java_string_hash(index_key(orders, k1))
        files = {w.file for w in store.chain(orders, k0) for s in w.steps if s.hash_matches}
        assert len(files) == 1, f"the collision keys are in different index files: {files}"
        rolled = [i for i in store.queue_infos() if len(i.files) > 1]
        assert rolled, "no consume queue rolled to a second file"
        assert any(row["lag"] for row in store.consumer_lag())
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        assert size < 1 << 20, f"store is {size} bytes"
    finally:
        store.close()


# --- output --------------------------------------------------------------------------------------------------

README_SKELETON = f"""# sample_store

A generated RocketMQ store; see `scripts/make_sample_store.py`.

{BEGIN_MARK}
{END_MARK}
"""


def update_readme(text: str, generated: str) -> str:
    pattern = re.compile(re.escape(BEGIN_MARK) + r".*?" + re.escape(END_MARK), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {BEGIN_MARK} ... {END_MARK} section")
    block = f"{BEGIN_MARK}\n<!-- written by scripts/make_sample_store.py from the store; do not edit by hand -->\n\n{generated}\n{END_MARK}"
    return pattern.sub(lambda _m: block, text, count=1)



