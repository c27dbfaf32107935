"""5.x timer store: timerlog unit, its segment-end blank, and the timer wheel slot (spec §9)."""

from __future__ import annotations

from construct import Const, Int32sb, Int64sb, Struct

TIMER_LOG_UNIT_SIZE = 52
TIMER_LOG_DEFAULT_FILE_SIZE = 100 * 1024 * 1024
TIMER_LOG_BLANK_MAGIC = 0xBBCCDDEE ^ (1880681586 + 8)  # evaluates to 0xCBD43194, the commitlog BLANK magic
TIMER_WHEEL_SLOT_SIZE = 32
TIMER_WHEEL_SLOTS = 2 * 7 * 86_400
TIMER_WHEEL_FILE_SIZE = TIMER_WHEEL_SLOTS * TIMER_WHEEL_SLOT_SIZE  # 38,707,200

MAGIC_DEFAULT, MAGIC_ROLL, MAGIC_DELETE = 1, 2, 4

TimerLogUnit = Struct(
    "size" / Int32sb * "unit size, 52",
    "prev_pos" / Int64sb * "timerlog offset of the previous unit of the same wheel slot, -1 = none",
    "magic" / Int32sb * "bits: 1 DEFAULT, 2 ROLL, 4 DELETE",
    "current_write_time" / Int64sb * "ms, precision-aligned",
    "delay" / Int32sb * "delivery time - write time, ms",
    "commitlog_offset" / Int64sb * "offset of the rmq_sys_wheel_timer record",
    "size_of_message" / Int32sb * "record size",
    "real_topic_hash" / Int32sb * "hashCode() of REAL_TOPIC, 0 if absent",
    "reserved" / Int64sb,
)

TimerLogBlank = Struct(
    "remaining" / Int32sb,
    "zero" / Int64sb,
    "magic" / Const(TIMER_LOG_BLANK_MAGIC - (1 << 32), Int32sb),
)
"""The 16-byte blank at the end of a timerlog segment."""

TimerWheelSlot = Struct(
    "time_in_precision" / Int64sb * "slot time / timerPrecisionMs",
    "first_pos" / Int64sb,
    "last_pos" / Int64sb * "head of the prev_pos chain",
    "num" / Int32sb,
    "magic" / Int32sb * "unused",
)
