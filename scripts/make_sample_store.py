#!/usr/bin/env python3
"""Generate the committed teaching store ``sample_store/`` (a small, realistic RocketMQ 5.x broker store).

Usage::

    python scripts/make_sample_store.py [--out DIR]

``DIR`` defaults to ``sample_store/`` at the repository root. The store is written into a temporary
directory next to the target and then moved into place: only the entries a store consists of
(``commitlog/``, ``consumequeue/``, ``index/``, ``config/``, ``checkpoint``, ``lock``, ``abort``) are
deleted and replaced; ``README.md`` is kept and only its section between the ``<!-- generated -->`` and
``<!-- /generated -->`` markers is rewritten from the new store (a README is created from a skeleton if
the target has none). Other files in the target are left alone.

Everything is deterministic: a fixed start time (2025-09-19 09:00:00 UTC), explicit store and born
timestamps for every record, UTC for index file names and UNIQ_KEY month starts, fixed producer
addresses / pids / class-loader hashes, and one seeded ``random.Random``. No wall-clock time is read.
The store is written through the engine's :class:`~inspector.engine.maintain.writer.StoreWriter` only; the
facts in the README are read back from the finished store through :class:`~inspector.engine.Store`.

The story: one broker (``10.20.0.5:10911``) of an online shop, one working day. ``order-service``,
``payment-service`` and ``inventory-service`` (plus an IPv6 warehouse gateway) publish to
``OrderEvents``, ``PaymentEvents`` and ``InventoryEvents``; three consumer groups read them. On top of
the ordinary traffic the day contains: the first two messages laid out so that the first six index
items land in slots 16, 29, 29, 8, 16, 16 (the worked example of the seed article on IndexFile), two
coupon keys with equal Java hash codes, a delayed message, transactions (two commits, one rollback), a
payment message that fails consumption three times and ends in the dead-letter queue, compressed bodies
(zlib, LZ4, ZSTD) and a message from an IPv6 producer.
"""

from __future__ import annotations

import argparse
import datetime as dt
import heapq
import json
import os
import random
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a plain script from a checkout
    sys.path.insert(0, str(REPO))

from inspector.engine import Store  # noqa: E402
from inspector.engine.maintain.messagespec import AppendResult, MessageSpec  # noqa: E402
from inspector.engine.maintain.writer import StoreWriter  # noqa: E402
from inspector.engine.model.geometry import Geometry  # noqa: E402
from inspector.engine.model.systopics import (  # noqa: E402
    DLQ_PREFIX,
    HALF_TOPIC,
    OP_TOPIC,
    RETRY_PREFIX,
    SCHEDULE_TOPIC,
    TRANS_GROUP,
)
from inspector.engine.read.body import decompress_body  # noqa: E402
from parsers.java import index_key, index_key_hash, java_string_hash  # noqa: E402
from parsers.msgid import encode_uniq_key, uniq_key_time_span  # noqa: E402

# --- fixed parameters ---------------------------------------------------------------------------------------

SEED = 20250919
T0 = 1_758_272_400_000  # 2025-09-19 09:00:00.000 UTC
DAY_END = T0 + 8 * 3600 * 1000 + 60_000  # the broker is shut down cleanly at 17:01 UTC; later events never happen
TZ = dt.UTC

SEGMENT_SIZE = 64 * 1024
CQ_UNITS_PER_FILE = 40
INDEX_SLOTS = 128
INDEX_ITEMS = 512
GEOMETRY = Geometry(
    segment_size=SEGMENT_SIZE,
    cq_file_size=CQ_UNITS_PER_FILE * 20,
    index_slots=INDEX_SLOTS,
    index_items=INDEX_ITEMS,
)

STORE_HOST = "10.20.0.5:10911"
CLUSTER = "DefaultCluster"
N_ORDERS = 56

ORDER_TOPIC, PAYMENT_TOPIC, INVENTORY_TOPIC = "OrderEvents", "PaymentEvents", "InventoryEvents"
FULFILLMENT, BILLING, STOCK = "fulfillment-consumer", "billing-consumer", "stock-consumer"
RETRY_TOPIC = f"{RETRY_PREFIX}{BILLING}"
DLQ_TOPIC = f"{DLQ_PREFIX}{BILLING}"
MAX_RECONSUME_TIMES = 3  # billing-consumer runs with consumer.setMaxReconsumeTimes(3)

# the seed article's IndexFile example: the first six items go into these slots
ARTICLE_SLOTS = (16, 29, 29, 8, 16, 16)
# two coupon codes whose "OrderEvents#coupon-..." strings have the same String.hashCode() ("Aa" == "BB")
COLLISION_KEYS = ("coupon-Aa7K", "coupon-BB7K")
OTHER_COUPONS = ("coupon-WELCOME10", "coupon-AUTUMN25", "coupon-FREESHIP")

STORE_ENTRIES = ("commitlog", "consumequeue", "index", "config", "checkpoint", "lock", "abort")
BEGIN_MARK, END_MARK = "<!-- generated -->", "<!-- /generated -->"


# --- producers ---------------------------------------------------------------------------------------------


@dataclass
class Producer:
    """One producer process: its address, MessageClientIDSetter fixed part, counter and queue cursor."""

    name: str
    ip: str
    port: int
    pid: int
    class_loader_hash: int
    counter: int
    cursor: dict[str, int] = field(default_factory=dict)  # round-robin position per topic

    @property
    def host(self) -> str:
        return f"[{self.ip}]:{self.port}" if ":" in self.ip else f"{self.ip}:{self.port}"

    def uniq_key(self, born_ms: int) -> str:
        key = encode_uniq_key(self.ip, self.pid, self.class_loader_hash, uniq_key_time_span(born_ms, TZ), self.counter)
        self.counter = (self.counter + 1) & 0xFFFF
        return key

    def peek_uniq_key(self, born_ms: int) -> str:
        return encode_uniq_key(self.ip, self.pid, self.class_loader_hash, uniq_key_time_span(born_ms, TZ), self.counter)

    def round_robin(self, topic: str, queues: int = 4) -> int:
        """``TopicPublishInfo.selectOneMessageQueue``: the producer's per-topic index, modulo the queue count."""
        n = self.cursor[topic]
        self.cursor[topic] = n + 1
        return n % queues


def by_hash_queue(order_id: str, queues: int = 4) -> int:
    """``SelectMessageQueueByHash``: ``arg.hashCode() % size`` (Java remainder), made non-negative with ``Math.abs``."""
    return abs(java_string_hash(order_id)) % queues


def slot_of(topic: str, key: str) -> int:
    return index_key_hash(index_key(topic, key)) % INDEX_SLOTS


def compact(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, TZ).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


# --- the day -----------------------------------------------------------------------------------------------


@dataclass
class Order:
    order_id: str
    customer: str
    lines: list[tuple[str, int, int]]  # (sku, qty, unit price in cents)
    coupon: str | None = None
    payment_id: str = ""
    queue: int = 0
    special: str = ""  # the teaching role of this order, "" for ordinary ones

    @property
    def amount(self) -> int:
        """In cents; a coupon takes 10 % off."""
        total = sum(q * p for _, q, p in self.lines)
        return total - total // 10 if self.coupon else total


@dataclass
class Facts:
    """What the generator wrote, for the README and the self-checks (the README re-reads the store)."""

    results: dict[str, AppendResult] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)


class Day:
    """A small discrete-event simulation of the shop's day, appended to a StoreWriter in time order."""

    def __init__(self, writer: StoreWriter) -> None:
        self.w = writer
        self.rng = random.Random(SEED)
        self.facts = Facts()
        self.queue: list[tuple[int, int, Callable[[int], None]]] = []
        self.seq = 0
        self.last_store = T0 - 1
        self.sent: dict[int, MessageSpec] = {}  # AppendResult.index -> the spec written
        rng = self.rng
        self.order_service = Producer("order-service", "10.20.1.11", 52311, 18231, 0x2A139A55, rng.randrange(4096))
        self.payment_service = Producer("payment-service", "10.20.1.21", 48652, 7719, 0x6D06D69C, rng.randrange(4096))
        self.inventory_service = Producer("inventory-service", "10.20.1.31", 50120, 23504, 0x1B6D3586, rng.randrange(4096))
        self.warehouse_gateway = Producer("warehouse-gateway", "2001:db8:20::31", 40722, 3088, 0x4E25154F, rng.randrange(4096))
        for p in (self.order_service, self.payment_service, self.inventory_service, self.warehouse_gateway):
            p.cursor = {t: rng.randrange(4) for t in (ORDER_TOPIC, PAYMENT_TOPIC, INVENTORY_TOPIC)}
        self.catalog = [f"SKU-{10000 + 37 * i}" for i in range(160)]
        self.prices = {sku: rng.randrange(299, 15999) for sku in self.catalog}
        self.stock = {sku: rng.randrange(20, 400) for sku in self.catalog}
        self.customers = [f"customer-{n}" for n in rng.sample(range(17, 990), 24)]
        self.next_order_number = 1001
        self.next_payment_number = 880_100

    # -- scheduling -----------------------------------------------------------------------------------------

    def at(self, when: int, action: Callable[[int], None]) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (when, self.seq, action))

    def run(self) -> None:
        while self.queue:
            when, _, action = heapq.heappop(self.queue)
            if when > DAY_END:
                continue  # not happened yet when the broker was shut down
            action(when)

    def store_time(self, wanted: int) -> int:
        """Store timestamps never go back (the broker takes them under the append lock)."""
        t = max(wanted, self.last_store + 1)
        self.last_store = t
        return t

    # -- sending --------------------------------------------------------------------------------------------

    def send(
        self,
        producer: Producer,
        when: int,
        topic: str,
        queue_id: int,
        tags: str,
        keys: list[str],
        body: bytes,
        *,
        born_delay: int | None = None,
        **extra,
    ) -> AppendResult:
        store_ts = self.store_time(when)
        born = store_ts - (born_delay if born_delay is not None else self.rng.randrange(1, 9))
        spec = MessageSpec(
            topic=topic,
            body=body,
            queue_id=queue_id,
            tags=tags,
            keys=keys,
            born_host=producer.host,
            born_timestamp=born,
            store_timestamp=store_ts,
            unique_key=producer.uniq_key(born),
            wait_store_msg_ok=True,
            cluster=CLUSTER,
            **extra,
        )
        return self.append(spec)

    def append(self, spec: MessageSpec) -> AppendResult:
        result = self.w.append(spec)
        self.sent[result.index] = spec
        return result

    # -- orders ---------------------------------------------------------------------------------------------

    def new_order(self, order_number: int, customer: str, lines: list[tuple[str, int, int]], coupon: str | None) -> Order:
        order_id = f"order-{order_number}"
        order = Order(order_id, customer, lines, coupon)
        order.queue = by_hash_queue(order_id)
        order.payment_id = f"pay-{self.next_payment_number}"
        self.next_payment_number += self.rng.randrange(1, 40)
        return order

    def random_lines(self) -> list[tuple[str, int, int]]:
        skus = self.rng.sample(self.catalog, self.rng.choice((1, 1, 2, 2, 3)))
        return [(s, self.rng.choice((1, 1, 1, 2, 3)), self.prices[s]) for s in skus]

    def order_body(self, order: Order, status: str, when: int, **more) -> bytes:
        body = {
            "orderId": order.order_id,
            "customerId": order.customer,
            "status": status,
            "amount": money(order.amount),
            "currency": "EUR",
        }
        if status == "CREATED":
            body["items"] = [{"sku": s, "qty": q, "price": money(p)} for s, q, p in order.lines]
            if order.coupon:
                body["coupon"] = order.coupon.removeprefix("coupon-")
        body.update(more)
        body["eventTime"] = iso(when)
        return compact(body)

    def order_keys(self, order: Order, created: bool = False) -> list[str]:
        """Order id and customer; the coupon code only on the ``created`` event."""
        keys = [order.order_id, order.customer]
        if created and order.coupon:
            keys.append(order.coupon)
        return keys

    def created(self, order: Order, when: int, *, transactional: str | None = None, **send_kw) -> AppendResult:
        kw = dict(send_kw)
        if transactional:
            kw.update(transaction="half", producer_group="order-tx-producer")
        return self.send(self.order_service, when, ORDER_TOPIC, order.queue, "created", self.order_keys(order, True),
                         self.order_body(order, "CREATED", when), **kw)

    def lifecycle(self, order: Order, created_at: int) -> None:
        """What follows an order's creation: reservation, payment, shipping."""
        rng = self.rng
        self.at(created_at + rng.randrange(300, 2000), lambda t: self.reserve(order, t))
        auth_at = created_at + rng.randrange(20_000, 240_000)
        failed = rng.random() < 0.07 and not order.special  # special orders must get paid
        self.at(auth_at, lambda t: self.authorize(order, t, failed))

    def reserve(self, order: Order, when: int, **send_kw) -> AppendResult:
        p = self.inventory_service
        keys = [s for s, _, _ in order.lines] + [order.order_id]
        lines = []
        for sku, qty, _ in order.lines:
            self.stock[sku] = max(0, self.stock[sku] - qty)
            lines.append({"sku": sku, "qty": qty, "available": self.stock[sku]})
        body = compact({"orderId": order.order_id, "warehouse": "WH-BER-1", "lines": lines, "eventTime": iso(when)})
        return self.send(p, when, INVENTORY_TOPIC, p.round_robin(INVENTORY_TOPIC), "reserved", keys, body, **send_kw)

    def authorize(self, order: Order, when: int, failed: bool) -> None:
        p = self.payment_service
        status = "FAILED" if failed else "AUTHORIZED"
        body = compact({"paymentId": order.payment_id, "orderId": order.order_id, "status": status,
                        "amount": money(order.amount), "currency": "EUR", "method": self.rng.choice(("card", "card", "paypal", "sepa")),
                        "eventTime": iso(when)})
        self.send(p, when, PAYMENT_TOPIC, p.round_robin(PAYMENT_TOPIC), "failed" if failed else "authorized",
                  [order.payment_id, order.order_id], body)
        rng = self.rng
        if failed:
            self.at(when + rng.randrange(800, 3000), lambda t: self.cancel(order, t))
            return
        self.at(when + rng.randrange(500, 3000), lambda t: self.paid(order, t))

    def paid(self, order: Order, when: int) -> None:
        self.send(self.order_service, when, ORDER_TOPIC, order.queue, "paid", self.order_keys(order),
                  self.order_body(order, "PAID", when, paymentId=order.payment_id))
        rng = self.rng
        self.at(when + rng.randrange(300_000, 3_600_000), lambda t: self.capture(order, t))
        self.at(when + rng.randrange(1_800_000, 9_000_000), lambda t: self.ship(order, t))

    def capture(self, order: Order, when: int) -> AppendResult:
        p = self.payment_service
        currency = "BTC" if order.special == "poison" else "EUR"  # billing-consumer cannot book BTC: it never succeeds
        body = compact({"paymentId": order.payment_id, "orderId": order.order_id, "status": "CAPTURED",
                        "amount": money(order.amount), "currency": currency, "eventTime": iso(when)})
        result = self.send(p, when, PAYMENT_TOPIC, p.round_robin(PAYMENT_TOPIC), "captured",
                           [order.payment_id, order.order_id], body)
        if order.order_id in self.fail_captures:
            fails = self.fail_captures[order.order_id]
            self.at(when + self.rng.randrange(150, 900), lambda t: self.consume_failed(result, t, fails))
        return result

    def ship(self, order: Order, when: int) -> None:
        carrier, prefix = self.rng.choice((("DHL", "JJD0146"), ("DPD", "0150"), ("UPS", "1Z9A4")))
        tracking = prefix + "".join(self.rng.choice("0123456789") for _ in range(10))
        self.send(self.order_service, when, ORDER_TOPIC, order.queue, "shipped", self.order_keys(order),
                  self.order_body(order, "SHIPPED", when, carrier=carrier, trackingNo=tracking))
        p = self.inventory_service
        lines = [{"sku": s, "qty": q} for s, q, _ in order.lines]
        body = compact({"orderId": order.order_id, "warehouse": "WH-BER-1", "lines": lines, "eventTime": iso(when + 1)})
        self.send(p, when + self.rng.randrange(200, 1500), INVENTORY_TOPIC, p.round_robin(INVENTORY_TOPIC), "deducted",
                  [s for s, _, _ in order.lines] + [order.order_id], body)

    def cancel(self, order: Order, when: int) -> None:
        self.send(self.order_service, when, ORDER_TOPIC, order.queue, "cancelled", self.order_keys(order),
                  self.order_body(order, "CANCELLED", when, reason="PAYMENT_FAILED"))
        p = self.inventory_service
        lines = []
        for sku, qty, _ in order.lines:
            self.stock[sku] += qty
            lines.append({"sku": sku, "qty": qty, "available": self.stock[sku]})
        body = compact({"orderId": order.order_id, "warehouse": "WH-BER-1", "lines": lines, "eventTime": iso(when)})
        self.send(p, when + self.rng.randrange(200, 1500), INVENTORY_TOPIC, p.round_robin(INVENTORY_TOPIC), "released",
                  [s for s, _, _ in order.lines] + [order.order_id], body)

    # -- consumption failures: retry topic and DLQ (spec §9.1, §10.2) ------------------------------------------

    def consume_failed(self, consumed: AppendResult, when: int, fails: int) -> None:
        """billing-consumer returned RECONSUME_LATER for the message ``consumed``.

        ``consumerSendMsgBack``: below maxReconsumeTimes the broker re-puts the message with delay level
        3 + reconsumeTimes (parked in SCHEDULE_TOPIC_XXXX with REAL_TOPIC = %RETRY%group; ScheduleMessageService
        delivers it there when due); at the limit it goes to %DLQ%group. Body, flag, properties, born host,
        born time and UNIQ_KEY are the consumed message's; RETRY_TOPIC and ORIGIN_MESSAGE_ID are added once.
        ``fails``: how many consumption attempts of this message fail in all.
        """
        src = self.sent[consumed.index]
        props = dict(src.properties)
        props.setdefault("RETRY_TOPIC", consumed.topic)
        props.setdefault("ORIGIN_MESSAGE_ID", consumed.msg_id)
        reconsume_times = src.reconsume_times
        common = dict(body=src.body, tags=src.tags, keys=src.keys, properties=props, born_host=src.born_host,
                      born_timestamp=src.born_timestamp, unique_key=src.unique_key, wait_store_msg_ok=True,
                      cluster=CLUSTER, reconsume_times=reconsume_times + 1, compression=src.compression)
        if reconsume_times >= MAX_RECONSUME_TIMES:
            self.facts.results["dlq"] = self.append(
                MessageSpec(topic=DLQ_TOPIC, queue_id=0, store_timestamp=self.store_time(when), **common))
            return
        level = 3 + reconsume_times
        parked = self.append(MessageSpec(topic=RETRY_TOPIC, queue_id=0, delay_level=level,
                                         store_timestamp=self.store_time(when), **common))
        self.delivered_levels.setdefault(level, 0)

        def deliver(t: int) -> None:
            # ScheduleMessageService.messageTimeUp: the same message again, now in %RETRY%group, DELAY cleared
            copy = self.append(MessageSpec(topic=RETRY_TOPIC, queue_id=0, store_timestamp=self.store_time(t),
                                           real_topic=RETRY_TOPIC, real_queue_id=0, **common))
            self.delivered_levels[level] += 1
            if reconsume_times + 2 <= fails:  # the next attempt fails as well
                self.at(t + self.rng.randrange(150, 900), lambda t2: self.consume_failed(copy, t2, fails))

        self.at(parked.store_timestamp + GEOMETRY.delay_ms(level) + self.rng.randrange(2, 90), deliver)

    # -- the special cases ---------------------------------------------------------------------------------------

    def plan(self) -> None:
        rng = self.rng
        self.fail_captures: dict[str, int] = {}
        self.delivered_levels: dict[int, int] = {}

        # 1) the article's example: items 1-6 of the first index file in slots 16, 29, 29, 8, 16, 16.
        #    message 1 (order created): UNIQ_KEY -> 16, order id -> 29, customer -> 29
        #    message 2 (its stock reservation): UNIQ_KEY -> 8, both SKUs -> 16, then the order id
        first_number = next(n for n in range(1001, 99999) if slot_of(ORDER_TOPIC, f"order-{n}") == ARTICLE_SLOTS[1])
        first_customer = next(c for c in (f"customer-{n}" for n in range(17, 990))
                              if slot_of(ORDER_TOPIC, c) == ARTICLE_SLOTS[2] and c not in self.customers)
        self.customers[0] = first_customer  # a regular: orders again later in the day
        skus16 = [s for s in self.catalog if slot_of(INVENTORY_TOPIC, s) == ARTICLE_SLOTS[4]][:2]
        if len(skus16) < 2:
            raise SystemExit("catalog has fewer than two SKUs in the article's slot 16; change the catalog")
        first = self.new_order(first_number, first_customer, [(skus16[0], 1, self.prices[skus16[0]]),
                                                              (skus16[1], 2, self.prices[skus16[1]])], None)
        self.next_order_number = first_number + 1
        t1, d1 = self._tune_uniq(self.order_service, T0 + 137, ORDER_TOPIC, ARTICLE_SLOTS[0])
        r1 = self.created(first, t1, born_delay=d1)
        self.last_store = r1.store_timestamp
        t2, d2 = self._tune_uniq(self.inventory_service, t1 + 842, INVENTORY_TOPIC, ARTICLE_SLOTS[3])
        r2 = self.reserve(first, t2, born_delay=d2)
        self.facts.results["article_1"], self.facts.results["article_2"] = r1, r2
        self.facts.notes["article_order"] = first.order_id
        self.facts.notes["article_customer"] = first.customer
        self.facts.notes["article_skus"] = " ".join(skus16)
        auth_at = t1 + rng.randrange(20_000, 90_000)
        self.at(auth_at, lambda t: self.authorize(first, t, False))

        # 2) the rest of the orders arrive through the day
        when = t1 + 60_000
        specials: dict[int, str] = {9: "collision-0", 12: "collision-1", 17: "tx-commit", 18: "tx-rollback",
                                    24: "delayed", 33: "tx-commit", 6: "capture-fails-once", 38: "capture-fails-once",
                                    27: "poison"}
        for i in range(1, N_ORDERS):
            when += rng.randrange(90_000, 780_000)
            number = self.next_order_number
            self.next_order_number += rng.choice((1, 1, 1, 2, 3))
            kind = specials.get(i, "")
            coupon = None
            if kind.startswith("collision-"):
                coupon = COLLISION_KEYS[int(kind[-1])]
            elif rng.random() < 0.15:
                coupon = rng.choice(OTHER_COUPONS)
            order = self.new_order(number, rng.choice(self.customers), self.random_lines(), coupon)
            order.special = kind
            if kind == "capture-fails-once":
                self.fail_captures[order.order_id] = 1
            if kind == "poison":
                self.fail_captures[order.order_id] = MAX_RECONSUME_TIMES + 1
            self.at(when, self._order_action(order, kind))

        # 3) one-off messages: IPv6 producer, compressed bodies
        self.at(T0 + 2 * 3600_000 + 31_417, self.ipv6_restock)
        self.at(T0 + 3 * 3600_000 + 2_113, self.zlib_snapshot)
        self.at(T0 + 6 * 3600_000 + 45_028, self.zstd_stocktake)
        self.at(T0 + 8 * 3600_000 + 12_777, self.lz4_settlement)

    def _order_action(self, order: Order, kind: str) -> Callable[[int], None]:
        def action(t: int) -> None:
            if kind.startswith("collision-"):
                self.facts.results[kind] = self.created(order, t)
                self.facts.notes[kind] = order.order_id
                self.lifecycle(order, t)
            elif kind in ("tx-commit", "tx-rollback"):
                half = self.created(order, t, transactional=kind)
                self.facts.results.setdefault(f"{kind}-half", half)
                self.facts.notes.setdefault(f"{kind}-order", order.order_id)
                decide = t + self.rng.randrange(600, 2500)
                if kind == "tx-commit":
                    def commit(t2: int) -> None:
                        result = self.w.commit(half.index, store_timestamp=self.store_time(t2))
                        self.sent[result.index] = self.sent[half.index]
                        self.facts.results.setdefault("tx-commit", result)
                        self.lifecycle(order, t2)

                    self.at(decide, commit)
                else:
                    def rollback(t2: int) -> None:
                        self.facts.results["tx-rollback"] = self.w.rollback(half.index, store_timestamp=self.store_time(t2))

                    self.at(decide, rollback)
            elif kind == "delayed":
                self.created(order, t)
                self.lifecycle(order, t)
                # a checkout timer: "check this order's payment in 10 s" (delay level 3)
                check_at = t + self.rng.randrange(20, 200)
                self.at(check_at, lambda t2: self.delayed_check(order, t2))
                self.facts.notes["delayed_order"] = order.order_id
            else:
                self.created(order, t)
                if kind == "poison":
                    self.facts.notes["poison_order"] = order.order_id
                self.lifecycle(order, t)

        return action

    def delayed_check(self, order: Order, when: int) -> None:
        body = compact({"orderId": order.order_id, "check": "PAYMENT_TIMEOUT", "eventTime": iso(when)})
        parked = self.send(self.order_service, when, ORDER_TOPIC, order.queue, "timeout-check", [order.order_id], body,
                           delay_level=3)
        self.facts.results["delayed"] = parked
        self.delivered_levels.setdefault(3, 0)
        src = self.sent[parked.index]

        def deliver(t: int) -> None:
            # ScheduleMessageService.messageTimeUp: the real topic and queue, DELAY cleared
            copy = self.append(MessageSpec(
                topic=ORDER_TOPIC, queue_id=order.queue, body=src.body, tags=src.tags, keys=src.keys,
                born_host=src.born_host, born_timestamp=src.born_timestamp, unique_key=src.unique_key,
                wait_store_msg_ok=True, cluster=CLUSTER, store_timestamp=self.store_time(t),
                real_topic=ORDER_TOPIC, real_queue_id=order.queue))
            self.delivered_levels[3] += 1
            self.facts.results["delayed_delivered"] = copy

        self.at(parked.store_timestamp + GEOMETRY.delay_ms(3) + self.rng.randrange(2, 90), deliver)

    def _tune_uniq(self, producer: Producer, store_ms: int, topic: str, slot: int) -> tuple[int, int]:
        """A store time (ms) and born delay near ``store_ms`` whose generated UNIQ_KEY lands in ``slot``."""
        for store in range(store_ms, store_ms + 1000):
            for delay in range(2, 9):
                if slot_of(topic, producer.peek_uniq_key(store - delay)) == slot:
                    return store, delay
        raise SystemExit(f"no UNIQ_KEY of {producer.name} near {store_ms} lands in slot {slot}")

    def ipv6_restock(self, when: int) -> None:
        p = self.warehouse_gateway
        sku = self.rng.choice(self.catalog)
        self.stock[sku] += 120
        body = compact({"sku": sku, "qty": 120, "warehouse": "WH-BER-1", "dock": "D4", "available": self.stock[sku],
                        "scanner": "hh-0731", "eventTime": iso(when)})
        self.facts.results["ipv6"] = self.send(p, when, INVENTORY_TOPIC, p.round_robin(INVENTORY_TOPIC), "restocked",
                                               [sku, "asn-7731004"], body)

    def _stock_table(self, when: int, kind: str) -> bytes:
        rows = [{"sku": s, "warehouse": "WH-BER-1", "bin": f"A{i // 20:02d}-{i % 20:02d}", "available": self.stock[s],
                 "reserved": self.rng.randrange(0, 6)} for i, s in enumerate(self.catalog)]
        return compact({"type": kind, "warehouse": "WH-BER-1", "asOf": iso(when), "skuCount": len(rows), "rows": rows})

    def zlib_snapshot(self, when: int) -> None:
        p = self.inventory_service
        self.facts.results["zlib"] = self.send(p, when, INVENTORY_TOPIC, p.round_robin(INVENTORY_TOPIC), "snapshot",
                                               ["snapshot-WH-BER-1-1200"], self._stock_table(when, "SNAPSHOT"),
                                               compression="zlib")

    def zstd_stocktake(self, when: int) -> None:
        p = self.warehouse_gateway
        self.facts.results["zstd"] = self.send(p, when, INVENTORY_TOPIC, p.round_robin(INVENTORY_TOPIC), "stocktake",
                                               ["stocktake-WH-BER-1-1500"], self._stock_table(when, "STOCKTAKE"),
                                               compression="zstd")

    def lz4_settlement(self, when: int) -> None:
        p = self.payment_service
        rows = [{"paymentId": f"pay-{880_100 + 7 * i}", "amount": money(self.rng.randrange(500, 40000)), "fee": money(self.rng.randrange(10, 300)),
                 "scheme": self.rng.choice(("VISA", "MC", "PAYPAL", "SEPA"))} for i in range(70)]
        body = compact({"type": "SETTLEMENT_REPORT", "acquirer": "acq-eu-1", "businessDay": "2025-09-19", "rows": rows})
        self.facts.results["lz4"] = self.send(p, when, PAYMENT_TOPIC, p.round_robin(PAYMENT_TOPIC), "settlement",
                                              ["settlement-2025-09-19"], body, compression="lz4")


# --- consumer offsets at shutdown ---------------------------------------------------------------------------


def consumer_offsets(max_offsets: dict[tuple[str, int], int]) -> dict[tuple[str, str], dict[int, int]]:
    """Where each group stands at shutdown: fulfillment and stock lag on some queues, billing is caught up."""
    def full(topic: str) -> dict[int, int]:
        return {q: o for (t, q), o in max_offsets.items() if t == topic}

    orders = full(ORDER_TOPIC)
    orders[1] = max(0, orders[1] - 3)  # a slow fulfillment worker on queue 1
    orders[3] = max(0, orders[3] - 6)  # and on queue 3
    stock = full(INVENTORY_TOPIC)
    stock[2] = max(0, stock[2] - 11)  # the stock consumer of queue 2 crashed in the afternoon
    return {
        (ORDER_TOPIC, FULFILLMENT): orders,
        (PAYMENT_TOPIC, BILLING): full(PAYMENT_TOPIC),
        (RETRY_TOPIC, BILLING): full(RETRY_TOPIC),
        (INVENTORY_TOPIC, STOCK): stock,
        (HALF_TOPIC, TRANS_GROUP): full(HALF_TOPIC),
        (OP_TOPIC, TRANS_GROUP): full(OP_TOPIC),
    }


def write_store(root: Path) -> Facts:
    with StoreWriter(root, GEOMETRY, clock=None, tz=TZ, producer_ip="10.20.1.11", pid=18231,
                     class_loader_hash=0x2A139A55, store_host=STORE_HOST) as writer:
        day = Day(writer)
        day.plan()
        day.run()
        writer.consumer_offsets = consumer_offsets(writer.consume_queues.max_offsets)
        writer.delay_offsets = dict(sorted(day.delivered_levels.items()))
        writer.queue_nums = {ORDER_TOPIC: 4, PAYMENT_TOPIC: 4, INVENTORY_TOPIC: 4}
    return day.facts


# --- README facts, read back from the finished store ---------------------------------------------------------


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


def render_generated(root: Path, facts: Facts) -> str:
    r = facts.results
    store = Store(root)
    try:
        return _render(store, facts, r)
    finally:
        store.close()


def _render(store: Store, facts: Facts, r: dict[str, AppendResult]) -> str:
    S = "sample_store"
    out: list[str] = []
    add = out.append
    scans = store.scans()
    messages = sum(s.messages for s in scans)
    add("## The store in numbers\n")
    add(f"Geometry (broker configuration, inferred by `rmq-inspect` from the file sizes): commitlog segments of "
        f"{SEGMENT_SIZE:,} bytes, consume-queue files of {GEOMETRY.cq_file_size:,} bytes ({CQ_UNITS_PER_FILE} units), "
        f"index files of {INDEX_SLOTS} slots x {INDEX_ITEMS} items.\n")
    add(f"{messages} commitlog records (message records, BLANKs not counted) from "
        f"{_utc(scans[0].first_store_timestamp)} to {_utc(scans[-1].last_store_timestamp)}, "
        f"physical offsets {store.min_offset} to {store.max_offset():,}.\n")
    add("| segment | start offset | records | BLANK at position | BLANK size | store times |")
    add("| --- | ---: | ---: | ---: | ---: | --- |")
    for s in scans:
        blank = (f"{s.blank_position:,} (phy {s.segment.start_offset + s.blank_position:,})", f"{s.blank_size:,}") \
            if s.blank_position is not None else ("- (ends in zeros)", "-")
        add(f"| `commitlog/{s.segment.name}` | {s.segment.start_offset:,} | {s.messages} | {blank[0]} | {blank[1]} | "
            f"{_hm(s.first_store_timestamp)} - {_hm(s.last_store_timestamp)} |")
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
        add(f"| `index/{reader.name}` | {h.index_count - 1}{full} | {h.hash_slot_count} | {_hm(h.begin_timestamp)} / "
            f"{_hm(h.end_timestamp)} | {h.begin_phy_offset:,} / {h.end_phy_offset:,} |")
    add("")
    cp = store.checkpoint()
    add(f"`checkpoint`: physicMsgTimestamp {_utc(cp.physic_msg_timestamp)}, logicsMsgTimestamp "
        f"{_utc(cp.logics_msg_timestamp)}, indexMsgTimestamp {_utc(cp.index_msg_timestamp)} (end of the last full "
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
    k0, k1 = COLLISION_KEYS
    h0, h1 = java_string_hash(index_key(ORDER_TOPIC, k0)), java_string_hash(index_key(ORDER_TOPIC, k1))
    c0, c1 = r["collision-0"], r["collision-1"]
    add("### 4. A real hash collision\n")
    assert h0 == h1
    add(f"`{ORDER_TOPIC}#{k0}` and `{ORDER_TOPIC}#{k1}` are different strings with the same Java `hashCode()`, {h0} "
        f"(\"Aa\" and \"BB\" hash alike: 65 x 31 + 97 = 66 x 31 + 66), so their index items carry the same keyHash "
        f"{index_key_hash(index_key(ORDER_TOPIC, k0))} in slot {slot_of(ORDER_TOPIC, k0)}. `{k0}` was used by {facts.notes['collision-0']} (physical offset "
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
    add(f"`{BILLING}` runs with maxReconsumeTimes {MAX_RECONSUME_TIMES}. It failed once on the `captured` events of "
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
        f"--from {store.config.consumer_offsets[(INVENTORY_TOPIC, STOCK)][2]}\n```\n")

    # ids and IPv6
    v6 = r["ipv6"]
    v6msg = store.message_at(v6.physical_offset)
    add("### 10. Message ids and an IPv6 producer\n")
    add(f"Every record has two ids. For the first message: offset msgId `{a1.msg_id}` (store host {STORE_HOST} + "
        f"physical offset {a1.physical_offset}) and UNIQ_KEY `{a1.unique_key}` (producer 10.20.1.11, pid, class-loader "
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
    for name, producer in (("zlib", "inventory-service"), ("lz4", "payment-service"), ("zstd", "warehouse-gateway")):
        res = r[name]
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


def _utc(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, TZ).strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d} UTC"


def _hm(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, TZ).strftime("%H:%M:%S")


# --- self-checks ---------------------------------------------------------------------------------------------


def check(root: Path) -> None:
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
        assert slots == ARTICLE_SLOTS, slots
        k0, k1 = COLLISION_KEYS
        assert java_string_hash(index_key(ORDER_TOPIC, k0)) == java_string_hash(index_key(ORDER_TOPIC, k1))
        files = {w.file for w in store.chain(ORDER_TOPIC, k0) for s in w.steps if s.hash_matches}
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


def generated_section(text: str) -> str:
    """The text between the markers (used by the tests)."""
    start, end = text.index(BEGIN_MARK), text.index(END_MARK)
    return text[start:end]


def generate(target: Path) -> Facts:
    target = target.resolve()
    target.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".sample_store-", dir=target.parent))
    try:
        root = work / "store"
        facts = write_store(root)
        check(root)
        generated = render_generated(root, facts)
        for name in STORE_ENTRIES:
            old = target / name
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old)
            elif old.exists() or old.is_symlink():
                old.unlink()
        for entry in sorted(root.iterdir()):
            os.replace(entry, target / entry.name)
        readme = target / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.exists() else README_SKELETON
        new = update_readme(text, generated)
        if new != text or not readme.exists():
            readme.write_text(new, encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "sample_store", help="target directory (default: %(default)s)")
    args = parser.parse_args(argv)
    generate(args.out)
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote {args.out} ({total:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
