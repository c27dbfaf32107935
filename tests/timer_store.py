"""Timer stores for tests: ``make_timer_store`` lays out timerlog, timerwheel, timercheck and timermetrics byte
by byte from the spec (§9.2-9.4, part 2 §18), with struct.pack of literal field values."""

from __future__ import annotations

import struct
from pathlib import Path

from parsers.java import java_string_hash

T0 = 1_700_000_000_000
FILE_SIZE = 52 * 3 + 30  # three units and room for the 16-byte blank (52 + 16 > 30: no fourth unit)
WHEEL = 38_707_200


def unit(prev: int, magic: int, write: int, delay: int, offset: int, size: int, topic: str) -> bytes:
    """A 52-byte unit, field by field as spec §9.2 lists them."""
    return struct.pack(">iqiqiqiiq", 52, prev, magic, write, delay, offset, size, java_string_hash(topic), 0)


def slot(time_s: int, first: int, last: int, num: int) -> bytes:
    return struct.pack(">qqqii", time_s, first, last, num, 0)


def make_timer_store(root: Path, *, second: bytes | None = None, wheel_size: int = WHEEL) -> Path:
    (root / "timerlog").mkdir(parents=True)
    (root / "config").mkdir()
    (root / "checkpoint").write_bytes(bytes(4096))
    first = (unit(-1, 1, T0, 5000, 0, 200, "Orders") + unit(-1, 1, T0, 9000, 200, 210, "Orders")
             + unit(0, 1, T0 + 1000, 4000, 410, 205, "Pay"))
    first += struct.pack(">iqi", FILE_SIZE - len(first), 0, 0xCBD43194 - (1 << 32))  # the blank
    (root / "timerlog" / f"{0:020d}").write_bytes(first.ljust(FILE_SIZE, b"\0"))
    second = second if second is not None else unit(-1, 5, T0 + 2000, 3000, 615, 220, "Pay")
    (root / "timerlog" / f"{FILE_SIZE:020d}").write_bytes(second.ljust(FILE_SIZE, b"\0"))
    wheel = bytearray(wheel_size)
    for t, first_pos, last_pos, num in ((T0 // 1000 + 5, 0, 104, 0), (T0 // 1000 + 9, 52, 52, 1)):
        at = t % 1_209_600 * 32
        if at + 32 <= wheel_size:
            wheel[at:at + 32] = slot(t, first_pos, last_pos, num)
    (root / "timerwheel").write_bytes(bytes(wheel))
    (root / "config" / "timercheck").write_bytes(struct.pack(">7q", T0 + 6000, 3 * 52, 4, 4, 0, T0, 7).ljust(4096, b"\0"))
    (root / "config" / "timermetrics").write_text(
        f'{{"dataVersion":{{"counter":1,"stateVersion":0,"timestamp":{T0}}},"timingCount":{{"Orders":{{"count":1,'
        f'"timeStamp":{T0}}},"Pay":{{"count":0,"timeStamp":{T0}}}}}}}')
    return root


WRITER_T = 1_700_000_000_500


def write_timer_store(root: Path) -> list:
    """A small 5.x store written by our writer: a delivered timer, two pending ones sharing a slot, a plain
    message; small files (64 KiB segment, a tiny index, a 1,056-byte timer log)."""
    from inspector.engine.maintain.write.messagespec import MessageSpec
    from inspector.engine.maintain.write.writer import StoreWriter
    from inspector.engine.model.geometry import Geometry

    small = Geometry(segment_size=64 << 10, cq_file_size=20 * 64, index_slots=64, index_items=256)
    t = WRITER_T
    with StoreWriter(root, small, timer_file_size=52 * 20 + 16, producer_ip="10.0.0.7") as w:
        return [w.append(MessageSpec("Orders", b"due", keys=["a"], deliver_ms=t + 3000, store_timestamp=t)),
                w.append(MessageSpec("Orders", b"pending 1", keys=["b"], deliver_ms=t + 60_000, store_timestamp=t + 10)),
                w.append(MessageSpec("Pay", b"pending 2", keys=["c"], deliver_ms=t + 60_200, store_timestamp=t + 20)),
                w.append(MessageSpec("Pay", b"plain", store_timestamp=t + 10_000))]
