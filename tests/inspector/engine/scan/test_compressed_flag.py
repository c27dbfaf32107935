"""CHECK_COMPRESSED: verify's walk sends every record whose sysFlag says "compressed" through the careful step
(where its body is decompressed), on the compiled and the Python path alike."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import pytest
from external_tools import NUMBA, need

from inspector.engine.model.records import Message
from inspector.engine.read.store.store import Store
from inspector.engine.scan.kernels import python_only
from inspector.engine.scan.record_layout import CHECK_BODY_CRC, CHECK_COMPRESSED
from inspector.engine.scan.walk import check_run, find_clean

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"


@pytest.mark.parametrize("python", [False, True])
def test_runs_stop_at_each_compressed_record(python: bool) -> None:
    if not python:
        need(NUMBA)
    seen = 0
    with Store(SAMPLE) as store:
        for seg in store.segments:
            buf = store.commitlog.map(seg).buf
            msgs = [e for e in store.entries(seg.start_offset) if isinstance(e, Message) and e.file == seg.file]
            compressed = [m.position for m in msgs if m.compressed]
            with python_only() if python else nullcontext():
                stops, pos = [], 0
                while True:
                    run = check_run(buf, pos, len(buf), segment_start=seg.start_offset,
                                    flags=CHECK_BODY_CRC | CHECK_COMPRESSED)
                    if run.end >= msgs[-1].end_offset - seg.start_offset or run.end == pos and pos not in compressed:
                        break
                    stops.append(run.end)
                    pos = run.end + next(m.total_size for m in msgs if m.position == run.end)
                assert stops == compressed
                seen += len(compressed)
                for at in compressed:  # a resync never lands on one either
                    assert find_clean(buf, at, len(buf), segment_start=seg.start_offset,
                                      flags=CHECK_COMPRESSED) != at
                    assert find_clean(buf, at, len(buf), segment_start=seg.start_offset, flags=0) == at
    assert seen == 3  # the sample store's ZLIB, ZSTD and LZ4 records
