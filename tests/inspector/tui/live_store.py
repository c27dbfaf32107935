"""A live store for the reload and follow tests: a copy of ``sample_store/`` the test appends records to, as a
running broker would (the record into the preallocated last segment, then its consume-queue unit)."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

from tui_helpers import SAMPLE

from inspector.engine import Store
from inspector.engine.maintain.write.encode import encode_record

T0 = 1_758_301_300_000  # after the sample's last record (2025-09-19 17:00:27 UTC)


def live_copy(tmp_path: Path) -> Path:
    """A copy of the sample store under ``tmp_path`` (same directory name: screens show it)."""
    root = tmp_path / "sample_store"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root


def append_messages(root: Path, topic: str, queue_id: int, bodies: list[bytes], *, torn: bytes | None = None,
                    ) -> list[int]:
    """Append one record per body at the end of the log and its unit to the queue; ``torn``: then the first half
    of one more record (being written: no unit yet). Returns the new records' physical offsets."""
    with Store(root) as store:
        end = store.max_offset()
        seg = store.segments[-1]
        queue_end = store.queue_info(topic, queue_id).max_offset if (topic, queue_id) in store.queue_ids() else 0
    segment = root / "commitlog" / seg.name
    cq = root / "consumequeue" / topic / str(queue_id) / f"{0:020d}"
    cq.parent.mkdir(parents=True, exist_ok=True)
    cq.touch()
    written = []
    with open(segment, "r+b") as log, open(cq, "r+b") as units:
        for i, body in enumerate([*bodies, *([torn] if torn is not None else [])]):
            record = encode_record(topic=topic, body=body, properties={"KEYS": f"live-{queue_end + i}"},
                                   physical_offset=end, born_timestamp=T0 + i, born_host="10.20.1.11:52311",
                                   store_timestamp=T0 + i, store_host="10.20.0.5:10911", queue_id=queue_id,
                                   queue_offset=queue_end + i)
            assert end + len(record) + 8 <= seg.start_offset + seg.file_size, "the last segment is full"
            log.seek(end - seg.start_offset)
            if torn is not None and i == len(bodies):
                log.write(record[: len(record) // 2])  # the broker is still copying it
                break
            log.write(record)
            units.seek((queue_end + i) * 20)
            units.write(struct.pack(">qiq", end, len(record), 0))
            written.append(end)
            end += len(record)
    return written
