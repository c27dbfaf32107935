"""The sample store's day: the rules that turn the scenario ``sample_store.toml`` into messages.

The scenario says *what* happens (producers, topics, catalog, timings, teaching cases, one-off messages,
consumer lag); this module says *how* a shop's services and the broker turn it into records: a small
discrete-event simulation appended to the engine's ``StoreWriter`` in time order. One seeded
``random.Random`` draws in a fixed order and no wall-clock time is read, so the bytes are reproducible.
Used by ``make_sample_store.py``.
"""

from __future__ import annotations

import datetime as dt
import heapq
import json
import random
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# the engine, in one block: it is being split into more modules, and one block is one place to follow it
from inspector.engine.maintain.write.aging import Aged
from inspector.engine.maintain.write.messagespec import AppendResult, MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.systopics import HALF_TOPIC, OP_TOPIC, SCHEDULE_TOPIC
from parsers.java import index_key, index_key_hash, java_string_hash
from parsers.msgid import encode_uniq_key, uniq_key_time_span


class Scenario:
    """The TOML scenario, plus the few values every part of the day derives from it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = d = _load(path)
        self.start = d["day"]["start"]
        self.tz = self.start.tzinfo  # for index file names and UNIQ_KEY month starts
        self.t0, self.day_end = _ms(self.start), _ms(d["day"]["end"])
        g = d["geometry"]
        self.geometry = Geometry(segment_size=g["segment_size"], cq_file_size=g["cq_units_per_file"] * 20,
                                 index_slots=g["index_slots"], index_items=g["index_items"])
        self.topics, self.groups, self.cases = d["topics"], d["groups"], d["cases"]
        self.retry_topic, self.dlq_topic = f"%RETRY%{self.groups['billing']}", f"%DLQ%{self.groups['billing']}"
        self.half_topic, self.op_topic, self.schedule_topic = HALF_TOPIC, OP_TOPIC, SCHEDULE_TOPIC

    def __getitem__(self, section: str):
        return self.data[section]

    def at(self, time_of_day: dt.time) -> int:
        """A TOML local time of the day, in ms since the epoch."""
        return _ms(dt.datetime.combine(self.start.date(), time_of_day, tzinfo=self.tz))

    def slot_of(self, topic: str, key: str) -> int:
        return index_key_hash(index_key(topic, key)) % self.data["geometry"]["index_slots"]


def _load(path: Path) -> dict:
    """The TOML at ``path``; with ``base = "other.toml"`` (beside it), that scenario with this one's values laid
    over it, table by table (a variant names only what differs: the aged sample is the same day, aged)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    base = data.pop("base", None)
    return _overlay(_load(path.with_name(base)), data) if base else data


def _overlay(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        out[key] = _overlay(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _ms(when: dt.datetime) -> int:
    # integer arithmetic: float timestamps can turn 11:00:31.417 into ...416.9999 ms
    return (when - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)


def compact(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


@dataclass
class Producer:
    """One producer process: its address, MessageClientIDSetter fixed part, counter and queue cursor."""

    name: str
    ip: str
    port: int
    pid: int
    class_loader_hash: int
    tz: object
    counter: int = 0
    cursor: dict[str, int] = field(default_factory=dict)  # round-robin position per topic

    @property
    def host(self) -> str:
        return f"[{self.ip}]:{self.port}" if ":" in self.ip else f"{self.ip}:{self.port}"

    def peek_uniq_key(self, born_ms: int) -> str:
        span = uniq_key_time_span(born_ms, self.tz)
        return encode_uniq_key(self.ip, self.pid, self.class_loader_hash, span, self.counter)

    def uniq_key(self, born_ms: int) -> str:
        key = self.peek_uniq_key(born_ms)
        self.counter = (self.counter + 1) & 0xFFFF
        return key

    def round_robin(self, topic: str, queues: int) -> int:
        """``TopicPublishInfo.selectOneMessageQueue``: the producer's per-topic index, modulo the queue count."""
        n = self.cursor[topic]
        self.cursor[topic] = n + 1
        return n % queues


@dataclass
class Order:
    order_id: str
    customer: str
    lines: list[tuple[str, int, int]]  # (sku, qty, unit price in cents)
    coupon: str | None
    payment_id: str
    queue: int
    discount_percent: int
    special: str = ""  # the teaching case of this order, "" for ordinary ones

    @property
    def amount(self) -> int:
        """In cents, after the coupon's discount."""
        total = sum(q * p for _, q, p in self.lines)
        return total - total * self.discount_percent // 100 if self.coupon else total


@dataclass
class Facts:
    """What the day wrote, for the README (which otherwise re-reads the store)."""

    results: dict[str, AppendResult] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    sent: dict[int, MessageSpec] = field(default_factory=dict)  # every message sent, by AppendResult.index
    aged: Aged | None = None  # what the writer's aging did (a scenario with [aging])


class Day:
    """The shop's day as a discrete-event simulation, appended to a StoreWriter in time order."""

    def __init__(self, writer: StoreWriter, sc: Scenario) -> None:
        self.w, self.sc, self.facts = writer, sc, Facts()
        self.rng = rng = random.Random(sc["seed"])
        self.events: list[tuple[int, int, Callable[[int], None]]] = []
        self.seq, self.last_store = 0, sc.t0 - 1
        self.sent: dict[int, MessageSpec] = self.facts.sent  # AppendResult.index -> the spec written
        self.fail_captures: dict[str, int] = {}  # order id -> failed consumptions of its captured event
        self.delivered_levels: dict[int, int] = {}  # delayOffset.json
        state, topics = sc["producer_state"], list(sc.topics.values())
        self.producers = {p["name"]: Producer(**p, tz=sc.tz) for p in sc["producers"]}
        for p in self.producers.values():
            p.counter = rng.randrange(*state["uniq_counter"])
        for p in self.producers.values():
            p.cursor = {t: rng.randrange(*state["queue_cursor"]) for t in topics}
        cat = sc["catalog"]
        self.catalog = [cat["sku"].format(n=cat["first"] + cat["step"] * i) for i in range(cat["count"])]
        self.prices = {sku: rng.randrange(*cat["price_cents"]) for sku in self.catalog}
        self.stock = {sku: rng.randrange(*cat["stock"]) for sku in self.catalog}
        cust = sc["customers"]
        self.customers = [cust["name"].format(n=n) for n in rng.sample(range(*cust["numbers"]), cust["count"])]
        self.next_payment_number = sc["orders"]["first_payment_number"]
        # the first three producers play the order, payment and inventory services (the scenario says so)
        self.order_service, self.payment_service, self.inventory_service = list(self.producers.values())[:3]

    def later(self, when: int, rule: str) -> int:
        return when + self.rng.randrange(*self.sc["timing"][rule])

    def at(self, when: int, action: Callable[[int], None]) -> None:
        self.seq += 1
        heapq.heappush(self.events, (when, self.seq, action))

    def run(self) -> None:
        while self.events:
            when, _, action = heapq.heappop(self.events)
            if when <= self.sc.day_end:  # later events never happen: the broker was shut down
                action(when)

    def store_time(self, wanted: int) -> int:
        """Store timestamps never go back (the broker takes them under the append lock)."""
        self.last_store = max(wanted, self.last_store + 1)
        return self.last_store

    def iso(self, ms: int) -> str:
        return dt.datetime.fromtimestamp(ms / 1000, self.sc.tz).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"

    # -- sending --------------------------------------------------------------------------------------------

    def send(self, producer: Producer, when: int, topic: str, queue_id: int | None, tags: str, keys: list[str],
             body: bytes, *, born_delay: int | None = None, **extra) -> AppendResult:
        """``queue_id`` None: the producer's round robin."""
        if queue_id is None:
            queue_id = producer.round_robin(topic, self.sc["broker"]["queues"])
        store_ts = self.store_time(when)
        born = store_ts - (born_delay if born_delay is not None else self.later(0, "born_before_store"))
        return self.append(MessageSpec(
            topic=topic, body=body, queue_id=queue_id, tags=tags, keys=keys, born_host=producer.host,
            born_timestamp=born, store_timestamp=store_ts, unique_key=producer.uniq_key(born),
            wait_store_msg_ok=True, cluster=self.sc["broker"]["cluster"], **extra))

    def append(self, spec: MessageSpec) -> AppendResult:
        result = self.w.append(spec)
        self.sent[result.index] = spec
        return result

    def redeliver(self, src: MessageSpec, when: int, **where) -> AppendResult:
        """A broker-made copy of ``src`` (scheduled delivery, retry, DLQ): same body, keys, born host/time, UNIQ_KEY."""
        return self.append(MessageSpec(
            body=src.body, tags=src.tags, keys=src.keys, born_host=src.born_host, born_timestamp=src.born_timestamp,
            unique_key=src.unique_key, wait_store_msg_ok=True, cluster=self.sc["broker"]["cluster"],
            compression=src.compression, store_timestamp=self.store_time(when), **where))

    # -- orders ---------------------------------------------------------------------------------------------

    def new_order(self, number: int, customer: str, lines: list[tuple[str, int, int]], coupon: str | None) -> Order:
        o = self.sc["orders"]
        order_id = o["id"].format(n=number)
        queue = abs(java_string_hash(order_id)) % self.sc["broker"]["queues"]  # SelectMessageQueueByHash
        payment_id = o["payment_id"].format(n=self.next_payment_number)
        self.next_payment_number += self.rng.randrange(*o["payment_number_step"])
        return Order(order_id, customer, lines, coupon, payment_id, queue, o["coupon_discount_percent"])

    def random_lines(self) -> list[tuple[str, int, int]]:
        o = self.sc["orders"]
        skus = self.rng.sample(self.catalog, self.rng.choice(o["lines"]))
        return [(s, self.rng.choice(o["qty"]), self.prices[s]) for s in skus]

    def order_event(self, order: Order, when: int, status: str, *, created: bool = False, send_kw: dict | None = None,
                    **more) -> AppendResult:
        """An ``OrderEvents`` message; keys: order id and customer, plus the coupon code on ``created``."""
        body = {"orderId": order.order_id, "customerId": order.customer, "status": status,
                "amount": money(order.amount), "currency": self.sc["orders"]["currency"]}
        keys = [order.order_id, order.customer]
        if created:
            body["items"] = [{"sku": s, "qty": q, "price": money(p)} for s, q, p in order.lines]
            if order.coupon:
                body["coupon"] = order.coupon.removeprefix("coupon-")
                keys.append(order.coupon)
        body.update(more)
        body["eventTime"] = self.iso(when)
        return self.send(self.order_service, when, self.sc.topics["orders"], order.queue, status.lower(), keys,
                         compact(body), **(send_kw or {}))

    def stock_event(self, order: Order, when: int, tags: str, change: int | None, event_time: int | None = None,
                    **send_kw) -> AppendResult:
        """An ``InventoryEvents`` message for an order's lines; ``change``: -1 reserve, +1 release, None: no
        stock figure (deducted). Keys: the SKUs and the order id."""
        lines = []
        for sku, qty, _ in order.lines:
            if change is None:
                lines.append({"sku": sku, "qty": qty})
                continue
            self.stock[sku] = max(0, self.stock[sku] + change * qty)
            lines.append({"sku": sku, "qty": qty, "available": self.stock[sku]})
        body = compact({"orderId": order.order_id, "warehouse": self.sc["catalog"]["warehouse"], "lines": lines,
                        "eventTime": self.iso(when if event_time is None else event_time)})
        return self.send(self.inventory_service, when, self.sc.topics["inventory"], None, tags,
                         [s for s, _, _ in order.lines] + [order.order_id], body, **send_kw)

    def lifecycle(self, order: Order, created_at: int) -> None:
        """What follows an order's creation: reservation, payment, shipping."""
        self.at(self.later(created_at, "reserve"), lambda t: self.stock_event(order, t, "reserved", -1))
        auth_at = self.later(created_at, "authorize")
        failed = self.rng.random() < self.sc["timing"]["payment_failure_chance"] and not order.special
        self.at(auth_at, lambda t: self.authorize(order, t, failed))

    def payment_event(self, order: Order, when: int, status: str, currency: str, **more) -> AppendResult:
        body = {"paymentId": order.payment_id, "orderId": order.order_id, "status": status,
                "amount": money(order.amount), "currency": currency, **more, "eventTime": self.iso(when)}
        return self.send(self.payment_service, when, self.sc.topics["payments"], None, status.lower(),
                         [order.payment_id, order.order_id], compact(body))

    def authorize(self, order: Order, when: int, failed: bool) -> None:
        method = self.rng.choice(self.sc["payments"]["methods"])
        self.payment_event(order, when, "FAILED" if failed else "AUTHORIZED", self.sc["orders"]["currency"],
                           method=method)
        if failed:
            self.at(self.later(when, "cancel"), lambda t: self.cancel(order, t))
        else:
            self.at(self.later(when, "paid"), lambda t: self.paid(order, t))

    def paid(self, order: Order, when: int) -> None:
        self.order_event(order, when, "PAID", paymentId=order.payment_id)
        self.at(self.later(when, "capture"), lambda t: self.capture(order, t))
        self.at(self.later(when, "ship"), lambda t: self.ship(order, t))

    def capture(self, order: Order, when: int) -> None:
        poison = order.special == "poison"  # billing-consumer cannot book this currency: it never succeeds
        currency = self.sc.cases["poison_currency"] if poison else self.sc["orders"]["currency"]
        result = self.payment_event(order, when, "CAPTURED", currency)
        fails = self.fail_captures.get(order.order_id)
        if fails:
            self.at(self.later(when, "consume_failure"), lambda t: self.consume_failed(result, t, fails))

    def ship(self, order: Order, when: int) -> None:
        pay = self.sc["payments"]
        carrier, prefix = self.rng.choice(pay["carriers"])
        tracking = prefix + "".join(self.rng.choice("0123456789") for _ in range(pay["tracking_digits"]))
        self.order_event(order, when, "SHIPPED", carrier=carrier, trackingNo=tracking)
        self.stock_event(order, self.later(when, "deduct"), "deducted", None, event_time=when + 1)

    def cancel(self, order: Order, when: int) -> None:
        self.order_event(order, when, "CANCELLED", reason="PAYMENT_FAILED")
        self.stock_event(order, self.later(when, "release"), "released", +1, event_time=when)

    # -- consumption failures: retry topic and DLQ (spec §9.1, §10.2) ------------------------------------------

    def consume_failed(self, consumed: AppendResult, when: int, fails: int) -> None:
        """billing-consumer returned RECONSUME_LATER for the message ``consumed``.

        ``consumerSendMsgBack``: below maxReconsumeTimes the broker re-puts the message with delay level
        3 + reconsumeTimes (parked in SCHEDULE_TOPIC_XXXX with REAL_TOPIC = %RETRY%group; ScheduleMessageService
        delivers it there when due); at the limit it goes to %DLQ%group. RETRY_TOPIC and ORIGIN_MESSAGE_ID are
        added once. ``fails``: how many consumption attempts of this message fail in all.
        """
        src = self.sent[consumed.index]
        props = dict(src.properties)
        props.setdefault("RETRY_TOPIC", consumed.topic)
        props.setdefault("ORIGIN_MESSAGE_ID", consumed.msg_id)
        times = src.reconsume_times
        again = dict(properties=props, reconsume_times=times + 1)
        if times >= self.sc.groups["max_reconsume_times"]:
            self.facts.results["dlq"] = self.redeliver(src, when, topic=self.sc.dlq_topic, queue_id=0, **again)
            return
        level = 3 + times
        retry = self.sc.retry_topic
        parked = self.redeliver(src, when, topic=retry, queue_id=0, delay_level=level, **again)
        self.delivered_levels.setdefault(level, 0)

        def deliver(t: int) -> None:  # ScheduleMessageService.messageTimeUp: now in %RETRY%group, DELAY cleared
            copy = self.redeliver(src, t, topic=retry, queue_id=0, real_topic=retry, real_queue_id=0, **again)
            self.delivered_levels[level] += 1
            if times + 2 <= fails:  # the next attempt fails as well
                self.at(self.later(t, "consume_failure"), lambda t2: self.consume_failed(copy, t2, fails))

        self.at(self.later(parked.store_timestamp + self.sc.geometry.delay_ms(level), "delivery_late"), deliver)

    # -- the plan of the day ---------------------------------------------------------------------------------

    def plan(self) -> None:
        sc, rng, o, art = self.sc, self.rng, self.sc["orders"], self.sc["article"]
        orders, inventory, slots = sc.topics["orders"], sc.topics["inventory"], art["slots"]
        # 1) the article's example: items 1-6 of the first index file in the scenario's slots.
        #    message 1 (order created): UNIQ_KEY, order id, customer; message 2 (stock reserved): UNIQ_KEY, two SKUs
        number = next(n for n in range(o["first_number"], 99999) if sc.slot_of(orders, o["id"].format(n=n)) == slots[1])
        cust = sc["customers"]
        customer = next(c for c in (cust["name"].format(n=n) for n in range(*cust["numbers"]))
                        if sc.slot_of(orders, c) == slots[2] and c not in self.customers)
        self.customers[0] = customer  # a regular: orders again later in the day
        skus = [s for s in self.catalog if sc.slot_of(inventory, s) == slots[4]][:2]
        if len(skus) < 2:
            raise SystemExit(f"the catalog has fewer than two SKUs in the article's slot {slots[4]}; change the catalog")
        first = self.new_order(number, customer, [(s, q, self.prices[s]) for s, q in zip(skus, art["quantities"], strict=True)], None)
        t1, d1 = self.tune_uniq(self.order_service, sc.t0 + art["created_at"], orders, slots[0])
        r1 = self.order_event(first, t1, "CREATED", created=True, send_kw={"born_delay": d1})
        t2, d2 = self.tune_uniq(self.inventory_service, t1 + art["reserved_after"], inventory, slots[3])
        r2 = self.stock_event(first, t2, "reserved", -1, born_delay=d2)
        self.facts.results.update(article_1=r1, article_2=r2)
        self.facts.notes.update(article_order=first.order_id, article_customer=customer, article_skus=" ".join(skus))
        self.at(t1 + rng.randrange(*art["authorize"]), lambda t: self.authorize(first, t, False))

        # 2) the rest of the orders arrive through the day; some are teaching cases
        cases = self.sc.cases
        kinds = {n: kind for kind in ("tx_commit", "tx_rollback", "delayed", "capture_fails_once", "poison")
                 for n in cases[kind]}
        kinds.update({n: f"collision-{i}" for i, n in enumerate(cases["collision"])})
        when, number = t1 + o["first_gap_ms"], number + 1
        for i in range(1, o["count"]):
            when += rng.randrange(*o["gap_ms"])
            this, number = number, number + rng.choice(o["number_step"])
            kind = kinds.get(i, "")
            coupon = None
            if kind.startswith("collision-"):
                coupon = cases["collision_keys"][int(kind[-1])]
            elif rng.random() < o["coupon_chance"]:
                coupon = rng.choice(o["coupons"])
            order = self.new_order(this, rng.choice(self.customers), self.random_lines(), coupon)
            order.special = kind
            if kind in ("capture_fails_once", "poison"):
                self.fail_captures[order.order_id] = 1 if kind != "poison" else sc.groups["max_reconsume_times"] + 1
            self.at(when, self.order_action(order, kind))

        # 3) one-off messages at fixed times
        for one_off in sc["one_offs"]:
            self.at(sc.at(one_off["at"]), lambda t, spec=one_off: self.one_off(spec, t))

    def order_action(self, order: Order, kind: str) -> Callable[[int], None]:
        def action(t: int) -> None:
            if kind.startswith("tx_"):
                group = self.sc.cases["transaction_producer_group"]
                half = self.order_event(order, t, "CREATED", created=True,
                                        send_kw={"transaction": "half", "producer_group": group})
                name = kind.replace("_", "-")
                self.facts.results.setdefault(f"{name}-half", half)
                self.facts.notes.setdefault(f"{name}-order", order.order_id)
                self.at(self.later(t, "transaction_decision"), lambda t2: self.decide(order, half, name, t2))
                return
            created = self.order_event(order, t, "CREATED", created=True)
            if kind.startswith("collision-"):
                self.facts.results[kind], self.facts.notes[kind] = created, order.order_id
            elif kind == "poison":
                self.facts.notes["poison_order"] = order.order_id
            self.lifecycle(order, t)
            if kind == "delayed":  # a checkout timer: "check this order's payment later"
                self.at(self.rng.randrange(*self.sc.cases["delayed_check_after"]) + t, lambda t2: self.delayed_check(order, t2))
                self.facts.notes["delayed_order"] = order.order_id

        return action

    def decide(self, order: Order, half: AppendResult, name: str, when: int) -> None:
        if name == "tx-rollback":
            self.facts.results["tx-rollback"] = self.w.rollback(half.index, store_timestamp=self.store_time(when))
            return
        result = self.w.commit(half.index, store_timestamp=self.store_time(when))
        self.sent[result.index] = self.sent[half.index]
        self.facts.results.setdefault("tx-commit", result)
        self.lifecycle(order, when)

    def delayed_check(self, order: Order, when: int) -> None:
        level, orders = self.sc.cases["delay_level"], self.sc.topics["orders"]
        body = compact({"orderId": order.order_id, "check": "PAYMENT_TIMEOUT", "eventTime": self.iso(when)})
        parked = self.send(self.order_service, when, orders, order.queue, "timeout-check", [order.order_id], body,
                           delay_level=level)
        self.facts.results["delayed"] = parked
        self.delivered_levels.setdefault(level, 0)

        def deliver(t: int) -> None:  # ScheduleMessageService.messageTimeUp: the real topic and queue, DELAY cleared
            self.facts.results["delayed_delivered"] = self.redeliver(
                self.sent[parked.index], t, topic=orders, queue_id=order.queue, real_topic=orders,
                real_queue_id=order.queue)
            self.delivered_levels[level] += 1

        self.at(self.later(parked.store_timestamp + self.sc.geometry.delay_ms(level), "delivery_late"), deliver)

    def tune_uniq(self, producer: Producer, store_ms: int, topic: str, slot: int) -> tuple[int, int]:
        """A store time (ms) and born delay near ``store_ms`` whose generated UNIQ_KEY lands in ``slot``."""
        for store in range(store_ms, store_ms + 1000):
            for delay in range(2, 9):
                if self.sc.slot_of(topic, producer.peek_uniq_key(store - delay)) == slot:
                    return store, delay
        raise SystemExit(f"no UNIQ_KEY of {producer.name} near {store_ms} lands in slot {slot}")

    def one_off(self, spec: dict, when: int) -> None:
        b, producer, warehouse = spec["body"], self.producers[spec["producer"]], self.sc["catalog"]["warehouse"]
        keys = list(spec["keys"])
        if b["kind"] == "restock":
            sku = self.rng.choice(self.catalog)
            self.stock[sku] += b["qty"]
            keys.insert(0, sku)
            body = {"sku": sku, "qty": b["qty"], "warehouse": warehouse, "dock": b["dock"],
                    "available": self.stock[sku], "scanner": b["scanner"], "eventTime": self.iso(when)}
        elif b["kind"] == "stock-table":
            per_row = b["bins_per_row"]
            rows = [{"sku": s, "warehouse": warehouse, "bin": f"A{i // per_row:02d}-{i % per_row:02d}",
                     "available": self.stock[s], "reserved": self.rng.randrange(*b["reserved"])}
                    for i, s in enumerate(self.catalog)]
            body = {"type": b["type"], "warehouse": warehouse, "asOf": self.iso(when), "skuCount": len(rows), "rows": rows}
        else:  # settlement
            pay_id = self.sc["orders"]["payment_id"]
            rows = [{"paymentId": pay_id.format(n=b["first_payment_number"] + b["payment_number_step"] * i),
                     "amount": money(self.rng.randrange(*b["amount_cents"])), "fee": money(self.rng.randrange(*b["fee_cents"])),
                     "scheme": self.rng.choice(b["schemes"])} for i in range(b["rows"])]
            body = {"type": "SETTLEMENT_REPORT", "acquirer": b["acquirer"], "businessDay": b["business_day"], "rows": rows}
        extra = {"compression": spec["compression"]} if "compression" in spec else {}
        self.facts.results[spec["case"]] = self.send(producer, when, spec["topic"], None, spec["tags"], keys,
                                                     compact(body), **extra)
