"""The 4096-byte ``checkpoint`` file (spec §3.4) and 5.x ``config/timercheck`` (§9.4)."""

from __future__ import annotations

from construct import Bytes, Int64sb, Struct

CHECKPOINT_FILE_SIZE = 4096

Checkpoint = Struct(
    "physic_msg_timestamp" / Int64sb * "store time of the newest commitlog record at the last flush",
    "logics_msg_timestamp" / Int64sb * "store time of the last record written into a consume queue",
    "index_msg_timestamp" / Int64sb * "endTimestamp of the last full index file flushed (0 until one fills)",
    "master_flushed_offset" / Int64sb * "5.0.0+: master's flushed commitlog offset (HA); 0 in 4.x",
    "confirm_phy_offset" / Int64sb * "5.1.1+: confirmed commitlog offset; 0 in 4.x",
    "reserved" / Bytes(CHECKPOINT_FILE_SIZE - 40) * "unused, zero",
)
"""The whole 4096-byte checkpoint file. A 4.x file reads 0 in the two 5.x fields."""

TimerCheckpoint = Struct(
    "last_read_time_ms" / Int64sb,
    "last_timer_log_flush_pos" / Int64sb,
    "last_timer_queue_offset" / Int64sb,
    "master_timer_queue_offset" / Int64sb,
    "state_version" / Int64sb,
    "data_version_timestamp" / Int64sb,
    "data_version_counter" / Int64sb,
    "reserved" / Bytes(CHECKPOINT_FILE_SIZE - 56),
)
"""The 4096-byte ``config/timercheck`` file (5.x)."""
