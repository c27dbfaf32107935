"""The sysFlag reading is memoised by value: the same parts as the schema's parse, and a fresh dict each call."""

from inspector.engine.model.meaning import SYS_FLAG_PART_NAMES, sys_flag_parts
from parsers import commitlog as cl


def test_sys_flag_parts_equal_the_schema_reading_for_every_low_value():
    for flag in (*range(0, 1 << 12), 0x7FFFFFFF, -1):
        parsed = cl.sys_flag_parts(flag)
        assert sys_flag_parts(flag) == {name: parsed[name] for name in SYS_FLAG_PART_NAMES}
        assert list(sys_flag_parts(flag)) == list(SYS_FLAG_PART_NAMES)


def test_sys_flag_parts_hand_out_a_copy():
    first = sys_flag_parts(0)
    first["compressed"] = "changed by a caller"
    assert sys_flag_parts(0)["compressed"] is False
