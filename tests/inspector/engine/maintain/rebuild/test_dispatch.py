"""inspector.engine.maintain.rebuild.dispatch: tagsCode (spec §11, §14.2), consume-queue files (§4.1), index files (§5, §14.1)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from inspector.engine.maintain.rebuild import index_builder
from inspector.engine.maintain.rebuild.cq_builder import ConsumeQueueBuilder, cq_unit_bytes
from inspector.engine.maintain.rebuild.dispatch import DispatchRequest, dispatch_request
from inspector.engine.maintain.rebuild.index_builder import IndexBuilder, index_file_name, index_item_bytes
from inspector.engine.model.errors import BadInput
from inspector.engine.model.geometry import Geometry
from inspector.engine.model.systopics import SCHEDULE_TOPIC
from parsers.commitlog import (
    TRANSACTION_COMMIT_TYPE,
    TRANSACTION_NOT_TYPE,
    TRANSACTION_PREPARED_TYPE,
    TRANSACTION_ROLLBACK_TYPE,
)
from parsers.consumequeue import ConsumeQueueUnit
from parsers.indexfile import IndexHeader, IndexItem, IndexSlot, index_file_size, item_position, slot_position
from parsers.java import index_key_hash

UNIQ = "C0A8010A30391B6D3586075BCD150007"
T0 = 1_700_000_000_123


def request(
    topic: str = "TopicTest",
    queue_id: int = 0,
    physical_offset: int = 0,
    total_size: int = 100,
    store_timestamp: int = T0,
    queue_offset: int = 0,
    sys_flag: int = 0,
    properties: dict[str, str] | None = None,
    geometry: Geometry | None = None,
) -> DispatchRequest:
    return dispatch_request(
        topic,
        queue_id,
        physical_offset,
        total_size,
        store_timestamp,
        queue_offset,
        sys_flag,
        0,
        properties or {},
        geometry or Geometry(),
    )


# --- fast paths against the schemas ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values", [(0, 0, 0), (16400, 202, 2598919), (0, 0x7FFFFFFF, 0), (2**62, 1, -854686734)]
)
def test_cq_unit_packer_matches_schema(values: tuple[int, int, int]) -> None:
    phy, size, tags = values
    expected = ConsumeQueueUnit.build({"physical_offset": phy, "size": size, "tags_code": tags})
    assert cq_unit_bytes(phy, size, tags) == expected


@pytest.mark.parametrize(
    "values", [(0, 0, 0, 0), (630406310, 16400, 5, 1), (2**31 - 1, 2**40, 2**31 - 1, 19)]
)
def test_index_item_packer_matches_schema(values: tuple[int, int, int, int]) -> None:
    key_hash, phy, diff, prev = values
    expected = IndexItem.build(
        {"key_hash": key_hash, "phy_offset": phy, "time_diff": diff, "prev_index": prev}
    )
    assert index_item_bytes(key_hash, phy, diff, prev) == expected


@pytest.mark.parametrize("value", [0, 1, 2**31 - 1, -1])
def test_index_slot_packer_matches_schema(value: int) -> None:
    assert index_builder._INDEX_SLOT.pack(value) == IndexSlot.build(value)


# --- tagsCode (spec §11, §14.2) ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tags", "code", "unit_tail"),
    [
        ("TagA", 2_598_919, "00000000 0027A807"),
        ("tag-with-negative-hash", -854_686_734, "FFFFFFFF CD0E83F2"),
        (None, 0, "00000000 00000000"),
        ("", 0, "00000000 00000000"),
    ],
)
def test_tags_code_vectors(tags: str | None, code: int, unit_tail: str) -> None:
    req = request(properties={"TAGS": tags} if tags is not None else {})
    assert req.tags_code == code
    assert cq_unit_bytes(0, 0, req.tags_code)[12:] == bytes.fromhex(unit_tail)


def test_delayed_tags_code_vector() -> None:
    # §14.2: store 1,700,000,000,123 with DELAY=3 (10 s) -> tagsCode 1,700,000,010,123
    req = request(topic=SCHEDULE_TOPIC, queue_id=2, properties={"DELAY": "3", "TAGS": "TagA"})
    assert req.tags_code == 1_700_000_010_123


@pytest.mark.parametrize(
    ("topic", "delay", "expected"),
    [
        (SCHEDULE_TOPIC, "99", T0 + 2 * 3_600_000),  # clamped to the max level (18 = 2h)
        (SCHEDULE_TOPIC, "18", T0 + 2 * 3_600_000),
        (SCHEDULE_TOPIC, "1", T0 + 1000),
        (SCHEDULE_TOPIC, "0", 2_598_919),  # level 0: plain tag hash
        (SCHEDULE_TOPIC, "-2", 2_598_919),
        ("TopicTest", "3", 2_598_919),  # DELAY only matters in the schedule topic
    ],
)
def test_delay_tags_code_rules(topic: str, delay: str, expected: int) -> None:
    assert request(topic=topic, properties={"DELAY": delay, "TAGS": "TagA"}).tags_code == expected


def test_delivery_time_wraps_as_a_java_long() -> None:
    # computeDeliverTimestamp adds in a Java long: a store time near Long.MAX_VALUE wraps negative there, and the
    # unit the broker writes holds the wrapped value (found by the salvage fuzzer: struct.error packing the unit)
    near_max = (1 << 63) - 60_808
    req = request(topic=SCHEDULE_TOPIC, store_timestamp=near_max, properties={"DELAY": "18"})  # 2 h
    assert req.tags_code == near_max + 7_200_000 - (1 << 64)
    assert -(1 << 63) <= req.tags_code < 0


def test_delay_uses_geometry_levels() -> None:
    geometry = Geometry(delay_levels="1s 7m")
    req = request(topic=SCHEDULE_TOPIC, properties={"DELAY": "5"}, geometry=geometry)
    assert req.tags_code == T0 + 7 * 60_000


@pytest.mark.parametrize("bad", ["3 ", "x", "", "1e3", "99999999999"])
def test_unparseable_delay_is_bad_input(bad: str) -> None:
    with pytest.raises(BadInput):
        request(topic=SCHEDULE_TOPIC, properties={"DELAY": bad})


def test_request_fields_from_properties() -> None:
    req = request(properties={"KEYS": "a b", "UNIQ_KEY": UNIQ, "X": "y"}, sys_flag=TRANSACTION_COMMIT_TYPE)
    assert req.keys == "a b"
    assert req.unique_key == UNIQ
    assert req.transaction_type == TRANSACTION_COMMIT_TYPE
    assert req.properties["X"] == "y"
    bare = request()
    assert bare.keys == "" and bare.unique_key is None


# --- consume queue (spec §4.1) -----------------------------------------------------------------------------


def read_units(path: Path) -> list[tuple[int, int, int]]:
    data = path.read_bytes()
    return [
        (u.physical_offset, u.size, u.tags_code)
        for u in (ConsumeQueueUnit.parse(data[i : i + 20]) for i in range(0, len(data), 20))
    ]


def test_cq_files_roll_over_and_are_named_by_byte_offset(tmp_path: Path) -> None:
    geometry = Geometry(cq_file_size=60)  # 3 units per file
    builder = ConsumeQueueBuilder(tmp_path, geometry)
    for q in range(5):
        assert builder.put(request(physical_offset=q * 100, queue_offset=q, properties={"TAGS": "TagA"}))
    builder.close()
    directory = tmp_path / "consumequeue" / "TopicTest" / "0"
    assert sorted(p.name for p in directory.iterdir()) == ["00000000000000000000", "00000000000000000060"]
    assert builder.files == [directory / "00000000000000000000", directory / "00000000000000000060"]
    first, second = (read_units(directory / n) for n in ("00000000000000000000", "00000000000000000060"))
    assert first == [(0, 100, 2598919), (100, 100, 2598919), (200, 100, 2598919)]
    assert second == [(300, 100, 2598919), (400, 100, 2598919), (0, 0, 0)]  # zero tail preallocated
    assert all((directory / n).stat().st_size == 60 for n in ("00000000000000000000", "00000000000000000060"))
    assert builder.max_offsets == {("TopicTest", 0): 5}
    # the unit for queue offset q sits at (q*20) % size of file (q*20)//size*size
    for q in range(5):
        name = f"{q * 20 // 60 * 60:020d}"
        pos = q * 20 % 60
        assert (directory / name).read_bytes()[pos : pos + 8] == (q * 100).to_bytes(8, "big")


def test_cq_file_size_rounded_up_to_units(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path, Geometry(cq_file_size=50))
    builder.put(request())
    builder.close()
    assert builder.files[0].stat().st_size == 60


def test_cq_pre_blank_units_for_queue_starting_past_zero(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path, Geometry(cq_file_size=60))
    builder.put(request(physical_offset=5000, queue_offset=4))  # byte 80: file 60, position 20
    builder.put(request(physical_offset=5100, queue_offset=5))
    builder.close()
    directory = tmp_path / "consumequeue" / "TopicTest" / "0"
    assert [p.name for p in sorted(directory.iterdir())] == ["00000000000000000060"]
    assert read_units(directory / "00000000000000000060") == [
        (0, 0x7FFFFFFF, 0),
        (5000, 100, 0),
        (5100, 100, 0),
    ]
    assert builder.max_offsets == {("TopicTest", 0): 6}


def test_cq_only_not_type_and_commit(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path, Geometry(cq_file_size=60))
    assert builder.put(request(physical_offset=0, sys_flag=TRANSACTION_NOT_TYPE))
    assert not builder.put(request(physical_offset=100, sys_flag=TRANSACTION_PREPARED_TYPE))
    assert not builder.put(request(physical_offset=200, sys_flag=TRANSACTION_ROLLBACK_TYPE))
    assert builder.put(request(physical_offset=300, queue_offset=1, sys_flag=TRANSACTION_COMMIT_TYPE))
    builder.close()
    assert [u[0] for u in read_units(builder.files[0])] == [0, 300, 0]
    assert builder.last_store_timestamp == T0


def test_cq_is_idempotent(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path, Geometry(cq_file_size=100))
    assert builder.put(request(physical_offset=0, queue_offset=0))
    assert builder.put(request(physical_offset=100, queue_offset=1))
    assert not builder.put(request(physical_offset=0, queue_offset=0))  # phyOffset + size <= max
    assert not builder.put(request(physical_offset=100, queue_offset=1))
    assert not builder.put(request(physical_offset=500, queue_offset=1))  # queue offset already written
    builder.close()
    assert [u[0] for u in read_units(builder.files[0])] == [0, 100, 0, 0, 0]
    assert builder.warnings == []


def test_cq_gap_appends_at_write_position_like_the_broker(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path, Geometry(cq_file_size=100))
    builder.put(request(physical_offset=0, queue_offset=0))
    builder.put(request(physical_offset=100, queue_offset=3))
    builder.close()
    assert [u[0] for u in read_units(builder.files[0])] == [0, 100, 0, 0, 0]
    assert len(builder.warnings) == 1


def test_cq_refuses_path_escaping_topics(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path / "store", Geometry())
    for topic in ("..", "a/b", ".", ""):
        with pytest.raises(BadInput):
            builder.put(request(topic=topic))
    assert not (tmp_path / "store").exists()


def test_cq_default_file_size(tmp_path: Path) -> None:
    builder = ConsumeQueueBuilder(tmp_path, Geometry())
    builder.put(request(physical_offset=16400, total_size=202, properties={"TAGS": "TagA"}))
    builder.close()
    data = builder.files[0].read_bytes()
    assert len(data) == 6_000_000
    # §14.7 derived entry: the unit of the example record
    assert data[:20] == bytes.fromhex("0000000000004010 000000CA 000000000027A807")
    assert data[20:] == bytes(len(data) - 20)


# --- index (spec §5, §14.1) --------------------------------------------------------------------------------


def header(path: Path) -> dict[str, int]:
    parsed = IndexHeader.parse(path.read_bytes()[:40])
    return {k: v for k, v in parsed.items() if not k.startswith("_")}


def item(path: Path, n: int, slots: int) -> tuple[int, int, int, int]:
    pos = item_position(n, slots)
    parsed = IndexItem.parse(path.read_bytes()[pos : pos + 20])
    return parsed.key_hash, parsed.phy_offset, parsed.time_diff, parsed.prev_index


def slot(path: Path, key: str, slots: int) -> int:
    pos = slot_position(index_key_hash(key) % slots)
    return IndexSlot.parse(path.read_bytes()[pos : pos + 4])


def fixed_clock(value: int = 1_758_270_000_000):
    return lambda: value


def example_request(**kw: object) -> DispatchRequest:
    """The §14.7 message as dispatched."""
    base = {
        "physical_offset": 16400,
        "total_size": 202,
        "properties": {"TAGS": "TagA", "KEYS": "OrderID001", "UNIQ_KEY": UNIQ, "CLUSTER": "DefaultCluster"},
    }
    base.update(kw)
    return request(**base)  # type: ignore[arg-type]


def test_index_worked_example_small_geometry(tmp_path: Path) -> None:
    slots, items = 1000, 400
    builder = IndexBuilder(tmp_path, Geometry(index_slots=slots, index_items=items), clock=fixed_clock())
    assert builder.put(example_request()) == 2
    builder.close()
    (info,) = builder.files
    path = tmp_path / "index" / info.name
    assert path.stat().st_size == index_file_size(slots, items) == 40 + 4 * slots + 20 * items
    uniq_key, order_key = f"TopicTest#{UNIQ}", "TopicTest#OrderID001"
    assert index_key_hash(uniq_key) == 630_406_310 and index_key_hash(order_key) == 1_231_272_886
    # byte positions by the formula (item n at 40 + slots*4 + 20n, slot s at 40 + 4s)
    data = path.read_bytes()
    assert data[40 + 4 * slots + 20 : 40 + 4 * slots + 40] == bytes.fromhex(
        "25933CA6 0000000000004010 00000000 00000000"
    )
    assert data[40 + 4 * slots + 40 : 40 + 4 * slots + 60] == bytes.fromhex(
        "4963BBB6 0000000000004010 00000000 00000000"
    )
    assert data[40 + 4 * slots : 40 + 4 * slots + 20] == bytes(20)  # item 0 never used
    assert data[40 + 4 * (630_406_310 % slots) : 44 + 4 * (630_406_310 % slots)] == (1).to_bytes(4, "big")
    assert data[40 + 4 * (1_231_272_886 % slots) : 44 + 4 * (1_231_272_886 % slots)] == (2).to_bytes(4, "big")
    assert slot(path, uniq_key, slots) == 1 and slot(path, order_key, slots) == 2
    assert header(path) == {
        "begin_timestamp": T0,
        "end_timestamp": T0,
        "begin_phy_offset": 16400,
        "end_phy_offset": 16400,
        "hash_slot_count": 2,
        "index_count": 3,
    }
    assert info.hash_slot_count == 2 and info.index_count == 3 and not info.full


def _sparse_files_supported(directory: Path) -> bool:
    probe = directory / "sparse-probe"
    with open(probe, "wb") as f:
        f.truncate(64 << 20)
    sparse = probe.stat().st_blocks * 512 < (1 << 20)
    probe.unlink()
    return sparse


def test_index_worked_example_default_geometry(tmp_path: Path) -> None:
    """§14.1 with the real 5,000,000 / 20,000,000 geometry: a 420 MB file, cheap only if sparse."""
    if not _sparse_files_supported(tmp_path):
        pytest.skip(f"needs sparse files where the test writes ({tmp_path} holds every block): set TMPDIR to a "
                    "filesystem that keeps holes (ext4, xfs, btrfs, tmpfs)")
    builder = IndexBuilder(tmp_path, Geometry(), clock=fixed_clock())
    builder.put(example_request())
    builder.close()
    path = builder.files[0].path
    assert path.stat().st_size == 420_000_040
    with open(path, "rb") as f:

        def at(pos: int, n: int) -> bytes:
            f.seek(pos)
            return f.read(n)

        assert at(20_000_060, 20) == bytes.fromhex("25933CA6 0000000000004010 00000000 00000000")
        assert at(20_000_080, 20) == bytes.fromhex("4963BBB6 0000000000004010 00000000 00000000")
        assert at(1_625_280, 4) == bytes.fromhex("00000001")
        assert at(5_091_584, 4) == bytes.fromhex("00000002")
        assert at(0, 40) == IndexHeader.build(
            {
                "begin_timestamp": T0,
                "end_timestamp": T0,
                "begin_phy_offset": 16400,
                "end_phy_offset": 16400,
                "hash_slot_count": 2,
                "index_count": 3,
            }
        )


def test_index_key_order_and_splitting(tmp_path: Path) -> None:
    slots = 7919
    builder = IndexBuilder(tmp_path, Geometry(index_slots=slots, index_items=100), clock=fixed_clock())
    builder.put(request(topic=SCHEDULE_TOPIC, properties={"UNIQ_KEY": UNIQ, "KEYS": " a  b ", "TAGS": "t"}))
    builder.close()
    path = builder.files[0].path
    keys = [f"{SCHEDULE_TOPIC}#{UNIQ}", f"{SCHEDULE_TOPIC}#a", f"{SCHEDULE_TOPIC}#b"]  # topic as stored
    assert [item(path, n, slots)[0] for n in (1, 2, 3)] == [index_key_hash(k) for k in keys]
    assert header(path)["index_count"] == 4


def test_index_min_value_hash_goes_to_slot_zero(tmp_path: Path) -> None:
    builder = IndexBuilder(tmp_path, Geometry(index_slots=10, index_items=10), clock=fixed_clock())
    builder.put(request(properties={"KEYS": "pIBROD"}))  # "TopicTest#pIBROD".hashCode() == Integer.MIN_VALUE
    builder.close()
    path = builder.files[0].path
    assert item(path, 1, 10)[0] == 0
    assert path.read_bytes()[40:44] == (1).to_bytes(4, "big")


def test_index_same_slot_chains_and_counts_slot_once(tmp_path: Path) -> None:
    builder = IndexBuilder(tmp_path, Geometry(index_slots=1, index_items=10), clock=fixed_clock())
    builder.put(request(physical_offset=0, properties={"KEYS": "k1 k2"}))
    builder.put(request(physical_offset=100, store_timestamp=T0 + 2500, properties={"KEYS": "k3"}))
    builder.close()
    path = builder.files[0].path
    assert [item(path, n, 1)[3] for n in (1, 2, 3)] == [0, 1, 2]  # prevIndex links to the older item
    assert [item(path, n, 1)[2] for n in (1, 2, 3)] == [0, 0, 2]  # seconds, truncated
    assert path.read_bytes()[40:44] == (3).to_bytes(4, "big")  # slot holds the newest
    assert header(path)["hash_slot_count"] == 1
    assert header(path)["index_count"] == 4


def test_index_skips_rollback_and_already_indexed(tmp_path: Path) -> None:
    builder = IndexBuilder(tmp_path, Geometry(index_slots=10, index_items=100), clock=fixed_clock())
    assert builder.put(request(sys_flag=TRANSACTION_ROLLBACK_TYPE, properties={"KEYS": "a"})) == 0
    assert builder.files and builder.files[0].index_count == 1  # the file exists anyway
    assert (
        builder.put(
            request(physical_offset=500, sys_flag=TRANSACTION_PREPARED_TYPE, properties={"KEYS": "a"})
        )
        == 1
    )
    assert builder.put(request(physical_offset=400, properties={"KEYS": "b"})) == 0  # below endPhyOffset
    assert builder.put(request(physical_offset=500, properties={"KEYS": "c"})) == 1  # equal is not skipped
    assert (
        builder.put(request(physical_offset=600, sys_flag=TRANSACTION_COMMIT_TYPE, properties={"KEYS": "d"}))
        == 1
    )
    builder.close()
    assert builder.files[0].index_count == 4


def test_index_rollover_remaining_keys_and_time_diff_edge_case(tmp_path: Path) -> None:
    ticks = iter(range(1_758_270_000_000, 1_758_270_000_100))
    geometry = Geometry(index_slots=16, index_items=3)  # 2 items per file
    builder = IndexBuilder(tmp_path, geometry, clock=lambda: next(ticks), tz=dt.UTC)
    builder.put(request(physical_offset=0, store_timestamp=T0, properties={"KEYS": "a"}))
    # three keys: one fills file 1, the remaining two go to file 2 (timeDiff vs file 1's end, same ms -> 0)
    builder.put(request(physical_offset=100, store_timestamp=T0 + 1500, properties={"KEYS": "b c d"}))
    assert builder.index_msg_timestamp == T0 + 1500  # file 1 full and succeeded
    # file 2 is full now; the next record creates file 3 pre-set to file 2's end
    builder.put(request(physical_offset=200, store_timestamp=T0 + 9700, properties={"KEYS": "e"}))
    builder.put(request(physical_offset=300, store_timestamp=T0 + 12_000, properties={"KEYS": "f"}))
    builder.close()
    f1, f2, f3 = builder.files
    assert [f.name for f in (f1, f2, f3)] == ["20250919082000000", "20250919082000001", "20250919082000002"]
    assert [f.full for f in (f1, f2, f3)] == [True, True, True]
    slots = 16
    assert header(f1.path) == {
        "begin_timestamp": T0,
        "end_timestamp": T0 + 1500,
        "begin_phy_offset": 0,
        "end_phy_offset": 100,
        "hash_slot_count": len({index_key_hash(f"TopicTest#{k}") % slots for k in "ab"}),
        "index_count": 3,
    }
    assert item(f1.path, 2, slots)[2] == 1  # (1500 ms) / 1000
    assert item(f2.path, 1, slots)[:3] == (index_key_hash("TopicTest#c"), 100, 0)
    assert item(f2.path, 2, slots)[:3] == (index_key_hash("TopicTest#d"), 100, 0)
    h2 = header(f2.path)
    assert (h2["begin_timestamp"], h2["begin_phy_offset"], h2["index_count"]) == (T0 + 1500, 100, 3)
    # the edge case: file 3's first item is measured from file 2's end (T0+1500), then begin is reset
    assert item(f3.path, 1, slots)[2] == 8  # (9700 - 1500) / 1000
    assert item(f3.path, 2, slots)[2] == 2  # (12000 - 9700) / 1000, against the reset begin
    h3 = header(f3.path)
    assert (h3["begin_timestamp"], h3["end_timestamp"]) == (T0 + 9700, T0 + 12_000)
    assert (h3["begin_phy_offset"], h3["end_phy_offset"]) == (200, 300)
    # file 3 is full but no later record created a successor: the checkpoint still has file 2's end
    assert builder.index_msg_timestamp == T0 + 1500
    assert builder.last_full_end_timestamp == T0 + 12_000


def test_index_successor_created_by_a_keyless_record(tmp_path: Path) -> None:
    builder = IndexBuilder(tmp_path, Geometry(index_slots=4, index_items=2), clock=None)
    builder.put(request(physical_offset=0, store_timestamp=T0, properties={"KEYS": "a"}))
    builder.put(request(physical_offset=100, store_timestamp=T0 + 5000))  # no keys, still creates file 2
    builder.close()
    first, second = builder.files
    assert first.name == index_file_name(T0, dt.UTC)  # no clock: named after the triggering record
    assert second.name == index_file_name(T0 + 5000, dt.UTC)
    assert header(second.path) == {
        "begin_timestamp": T0,
        "end_timestamp": T0,
        "begin_phy_offset": 0,  # endPhyOffset 0 is not copied (only > 0)
        "end_phy_offset": 0,
        "hash_slot_count": 0,
        "index_count": 1,
    }
    assert builder.index_msg_timestamp == T0


def test_index_file_name_format_and_tz() -> None:
    assert index_file_name(1_758_302_740_123, dt.UTC) == "20250919172540123"
    tz = dt.timezone(dt.timedelta(hours=8))
    assert index_file_name(1_758_302_740_123, tz) == "20250920012540123"


def test_index_name_collision_is_bumped(tmp_path: Path) -> None:
    builder = IndexBuilder(
        tmp_path, Geometry(index_slots=4, index_items=2), clock=fixed_clock(1_758_302_740_999)
    )
    for n in range(3):
        builder.put(request(physical_offset=n * 100, properties={"KEYS": "k"}))
    builder.close()
    assert [f.name for f in builder.files] == ["20250919172540999", "20250919172541000", "20250919172541001"]


def test_index_geometry_validation(tmp_path: Path) -> None:
    with pytest.raises(BadInput):
        IndexBuilder(tmp_path, Geometry(index_slots=4, index_items=1))
