"""A page back in commitlog order (``page_before``: the web's "previous page" and "newest"): exactly the messages
a forward walk lists, BLANKs and damage passed over, a rare topic bounded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from external_tools import SAMPLE_STORE, need

from inspector.engine import Message, Store, page_before

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
from zeroed_page_store import zeroed_page_store  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def starts(store: Store, topic: str | None = None) -> list[int]:
    return [e.physical_offset for e in store.entries() if isinstance(e, Message) and topic in (None, e.topic)]


@pytest.fixture(scope="module")
def sample():
    need(SAMPLE_STORE)
    with Store(SAMPLE) as store:
        yield store


def test_the_page_before_is_the_forward_walks_page(sample):
    offs = starts(sample)  # the sample has three segments: pages back cross their BLANKs
    for i in (1, 3, 7, 60, 140, 141, 142, len(offs) - 1):
        assert page_before(sample, offs[i], 7) == offs[max(0, i - 7)], i
    assert page_before(sample, offs[0], 7) is None
    assert page_before(sample, sample.max_offset(), 5) == offs[-5]  # the newest page


def test_a_topic_and_the_bound(sample):
    orders = starts(sample, "OrderEvents")
    assert page_before(sample, orders[30], 10, topic="OrderEvents") == orders[20]
    assert page_before(sample, orders[30], 10, topic="NoSuchTopic") is None
    everything = starts(sample)
    reached = page_before(sample, orders[30], 10, topic="NoSuchTopic", max_records=5)
    assert reached == everything[everything.index(orders[30]) - 5]  # 5 records back: skips nothing before it
    assert page_before(sample, orders[30], 10, topic="NoSuchTopic", max_records=5, reach=False) is None


def test_damage_is_passed_over(tmp_path):
    need(SAMPLE_STORE)
    root, _ = zeroed_page_store(tmp_path / "store")
    with Store(root) as store:
        offs = starts(store)  # the messages a forward walk finds around the zeroed page
        for i in range(1, len(offs), 11):
            assert page_before(store, offs[i], 3) == offs[max(0, i - 3)], i
