"""One local SparkSession for every Spark test, and the stores they run on.

* ``spark``: ``local[2]``, two shuffle partitions, no UI, no progress bar; built by the project's own
  ``build_session`` (so the tests ship the project zip exactly as a job does).
* ``sample_store``: the committed teaching store (3 segments of 64 KiB).
* ``multi_store``: a generated store of 8 segments of 256 KiB (about 4,500 records): several topics and
  queues, tags, keys, unique keys, compressed bodies, a delayed message, committed and rolled-back
  transactions, an IPv6 producer, and rolled consume-queue and index files.
* ``damaged_copy``: a function that copies a store and applies byte surgery to the copy.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import external_tools
import pytest
from external_tools import JAVA, need

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry

REPO = Path(__file__).resolve().parents[3]
SAMPLE_STORE = REPO / "sample_store"
T0 = 1_758_272_400_000  # 2025-09-19 09:00:00 UTC
MULTI_GEOMETRY = Geometry(segment_size=256 * 1024, cq_file_size=20 * 500, index_slots=1024, index_items=4096)


def write_multi_segment_store(root: Path, *, segments: int = 8, geometry: Geometry = MULTI_GEOMETRY,
                              seed: int = 6) -> int:
    """Fill ``segments`` commitlog segments (the last one partly); returns the number of appends."""
    rng = random.Random(seed)
    topics = ["OrderEvents", "PaymentEvents", "InventoryEvents", "42"]
    budget = geometry.segment_size * (segments - 1) + geometry.segment_size // 3
    n = 0
    halves: list[int] = []
    with StoreWriter(root, geometry, producer_ip="10.0.0.7", pid=4242, store_host="192.168.0.10:10911",
                     consumer_offsets={("OrderEvents", "orders"): {0: 5, 1: 0}}) as w:
        while w._commitlog.max_offset < budget:  # noqa: SLF001 - test helper: stop at the wanted size
            ts = T0 + n * 250
            topic = topics[n % len(topics)]
            kind = n % 97
            keys = [f"order-{rng.randrange(2000)}", f"cust-{rng.randrange(300)}"]
            spec = dict(topic=topic, queue_id=rng.randrange(4), tags=rng.choice(["created", "paid", "shipped", None]),
                        keys=keys, body=(f'{{"n":{n},"pad":"' + "x" * rng.randrange(20, 400) + '"}').encode(),
                        store_timestamp=ts, born_timestamp=ts - rng.randrange(0, 40))
            if kind == 5:
                spec["compression"] = "zlib"
            elif kind == 11:
                spec["born_host"] = "[2001:db8::31]:40722"
            elif kind == 17:
                spec["delay_level"] = 3
            elif kind == 23:
                r = w.append(MessageSpec(**{**spec, "transaction": "half", "topic": "PaymentEvents"}))
                halves.append(r.index)
                n += 1
                continue
            elif kind == 29 and halves:
                w.commit(halves.pop(0), store_timestamp=ts)
                n += 1
                continue
            elif kind == 31 and halves:
                w.rollback(halves.pop(0), store_timestamp=ts)
                n += 1
                continue
            elif kind == 37:
                spec["keys"] = keys + [keys[0]]  # a repeated key
            w.append(MessageSpec(**spec))
            n += 1
    return n


@pytest.fixture(scope="session")
def spark():
    need(JAVA)
    from inspector.spark.session import build_session

    session = build_session("local[2]", app_name="rmq-inspect tests", progress=False, conf={
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.sql.adaptive.enabled": "false",
    })
    yield session
    session.stop()


@pytest.fixture(scope="session")
def sample_store() -> Path:
    need(external_tools.SAMPLE_STORE)
    return SAMPLE_STORE


@pytest.fixture(scope="session")
def multi_store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("multi") / "store"
    write_multi_segment_store(root)
    assert len(list((root / "commitlog").iterdir())) == 8
    return root


def _patch(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


@pytest.fixture
def damaged_copy(tmp_path) -> Callable[[Path, str], Path]:
    """``damaged_copy(store, name)``: a copy of ``store`` under tmp_path/name to damage with ``patch``."""

    def copy(src: Path, name: str) -> Path:
        dst = tmp_path / name
        shutil.copytree(src, dst)
        return dst

    return copy


@pytest.fixture(scope="session")
def patch() -> Callable[[Path, int, bytes], None]:
    return _patch
