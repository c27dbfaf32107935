"""Stores written by our own writer for engine and CLI tests (small geometry so every case shows up)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.geometry import Geometry


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels_loaded() -> None:
    """The compiled kernels loaded (when numba is there) before any test: a store under kernels.LAZY_BYTES alone
    takes the Python path when they are not loaded yet (kernels.small_job), and these tests' stores are all
    small; loaded, verify walks them with the kernels, as a large store is walked, and the tests that compare
    the two paths (python_only) compare both. Tests of the small-store choice run in a process of their own."""
    from inspector.engine.scan.kernels import numba_enabled

    numba_enabled()


GEOMETRY = Geometry(segment_size=4096, cq_file_size=200, index_slots=16, index_items=64)
T0 = 1_758_272_400_000  # 2025-09-19 09:00:00 UTC


def write_store(root: Path) -> dict:
    """Three topics, multi-segment log, rolled CQ and index files, a delayed message and a transaction."""
    facts: dict = {"offsets": [], "keys": {}}
    with StoreWriter(root, GEOMETRY, producer_ip="10.0.0.7", pid=4242, class_loader_hash=0x1B6D3586,
                     store_host="192.168.0.10:10911",
                     consumer_offsets={("OrderEvents", "order_consumer"): {0: 3, 1: 0}}) as w:
        for i in range(40):
            topic = ("OrderEvents", "PaymentEvents", "InventoryEvents")[i % 3]
            keys = [f"order-{1000 + i // 2}", f"cust-{i % 5}"]
            r = w.append(MessageSpec(topic=topic, queue_id=i % 4, tags=("created", "paid", "shipped")[i % 3],
                                     keys=keys, body=f'{{"n":{i}}}'.encode(), store_timestamp=T0 + i * 1000,
                                     born_timestamp=T0 + i * 1000 - 3))
            facts["offsets"].append(r.physical_offset)
            for k in keys:
                facts["keys"].setdefault((topic, k), []).append(r.physical_offset)
        d = w.append(MessageSpec(topic="OrderEvents", queue_id=2, tags="remind", keys=["order-delay"], body=b"later",
                                 delay_level=3, store_timestamp=T0 + 50_000))
        facts["delayed"] = d.physical_offset
        h = w.append(MessageSpec(topic="PaymentEvents", queue_id=1, transaction="half", keys=["pay-tx"], body=b"tx",
                                 store_timestamp=T0 + 51_000))
        c = w.commit(h.index, store_timestamp=T0 + 52_000)
        facts["half"], facts["commit"] = h.physical_offset, c.physical_offset
        facts["last"] = c.op.physical_offset if c.op is not None else c.physical_offset
        facts["first_msg_id"] = None
    return facts


@pytest.fixture(scope="session")
def pristine_store(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("pristine") / "store"
    facts = write_store(root)
    return root, facts


@pytest.fixture
def store_copy(pristine_store, tmp_path) -> tuple[Path, dict]:
    """A private copy a test may damage."""
    src, facts = pristine_store
    dst = tmp_path / "store"
    shutil.copytree(src, dst)
    return dst, facts
