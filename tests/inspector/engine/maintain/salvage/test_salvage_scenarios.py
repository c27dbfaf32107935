"""Salvage on every data scenario of the corruption suite (issue 32's "done means"): the plan names what was
injected, the salvaged store verifies clean, the broker's recovery on it keeps every record the damage did not
touch (byte for byte at its offset, against the undamaged sample store the scenario started from), every queue
keeps its offsets, and the damaged store is unchanged byte for byte."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from inspector.engine import Message, Store, salvage, salvage_plan, verify
from inspector.engine.read.store.recovery import recover_log
from parsers.java import java_string_hash

sys.path.insert(0, str(Path(__file__).parents[4] / "hardening"))
from damage_scenarios import DATA_SCENARIOS, SAMPLE, make, running_as_root  # noqa: E402
from store_digest import tree_digest  # noqa: E402

from inspector.engine.maintain.salvage.filler import LOST_TAG  # noqa: E402

HOLE_CODES = {"missing-segment", "not-a-segment-file"}
SCENARIOS = [s for s in DATA_SCENARIOS if not (s.needs_permissions and running_as_root())]


def _pristine():
    with Store(SAMPLE) as st:
        msgs = [m for m in st.commitlog.entries() if isinstance(m, Message)]
        raw = {m.physical_offset: st.commitlog.read(m.physical_offset, m.total_size) for m in msgs}
        queues = {(t, q): _units(st, t, q) for t, q in st.queue_ids()}
    return msgs, raw, queues


def _units(st, topic, qid) -> np.ndarray:
    q = st.queue(topic, qid)
    try:
        parts = [q.file_units(start) for start, _ in q.files]
    finally:
        q.close()
    return np.concatenate(parts) if parts else np.zeros(0)


PRISTINE = _pristine()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_salvage_of_each_damage(scenario, tmp_path):
    root, damage = make(scenario, tmp_path)
    before = tree_digest(root)
    with Store(root) as st:
        plan = salvage_plan(st)
        result = salvage(st, tmp_path / "out")
    assert tree_digest(root) == before  # the damaged store is only read
    _plan_names_the_damage(plan, damage)
    lost = [(s.start, s.end) for s in plan.spans if s.state == "lost"]
    # records kept as they read while their queue unit disagreed (properties damaged): not the sample's bytes
    suspect = [(s.start, s.end) for s in plan.spans if s.state == "intact" and s.reason]
    assert bool(suspect) == any(code == "cq-mismatch" for _, _, code in damage.findings | damage.knock_on)
    with Store(tmp_path / "out") as out:
        errors = verify(out).errors
        assert errors == [], [str(p) for p in errors]
        rec = recover_log(out.commitlog, out.root)
        assert rec.stop_problem is None
        _intact_records_kept(out, rec.end_offset, lost + suspect)
        _queues_keep_their_offsets(out, lost, suspect)
    assert result.rebuilt.recovery.end_offset == rec.end_offset


def _plan_names_the_damage(plan, damage) -> None:
    """Every commitlog finding injected is a span (or a repair, or a file left out), and every span that is not
    intact is one the scenario injected."""
    spans = [s for s in plan.spans if s.state != "intact"]
    explained = set()
    for file, offset, code in damage.findings:
        if not file.startswith("commitlog/"):
            continue
        name = file.rsplit("/", 1)[-1]
        at = int(name) + offset if name.isdigit() and int(name) < 1 << 63 else None
        if code == "offset-mismatch":
            assert at in plan.repairs
        elif code == "bad-file-name":
            assert any(f.file == file and f.action == "not copied" for f in plan.files)
        elif code in HOLE_CODES:
            hit = [s for s in spans if "segment file created" in s.action]
            assert hit, (file, code)
            explained.update(id(s) for s in hit)
        elif code == "wrong-segment-size":
            hit = [s for s in spans if s.file == file]
            assert hit
            explained.update(id(s) for s in hit)
        else:
            hit = [s for s in spans if s.start <= at < s.end]
            assert hit, (file, offset, code)
            explained.update(id(s) for s in hit)
    assert {id(s) for s in spans} <= explained, [(s.file, s.start, s.reason) for s in spans]


def _intact_records_kept(out, end: int, lost: list[tuple[int, int]]) -> None:
    msgs, raw, _ = PRISTINE
    log = out.commitlog
    for m in msgs:
        if any(s < m.end_offset and m.physical_offset < e for s, e in lost):
            continue
        if log.segment_for(m.physical_offset) is None:
            continue  # an empty commitlog: nothing was there to keep
        assert m.end_offset <= end, m.physical_offset
        assert log.read(m.physical_offset, m.total_size) == raw[m.physical_offset] or _repaired(raw, m, log)


def _repaired(raw, m, log) -> bool:
    """physical_offset_mismatch: the only bytes that may differ are the PHYSICALOFFSET field rewritten."""
    got = log.read(m.physical_offset, m.total_size)
    return got[:28] + got[36:] == raw[m.physical_offset][:28] + raw[m.physical_offset][36:]


def _queues_keep_their_offsets(out, lost: list[tuple[int, int]], suspect: list[tuple[int, int]]) -> None:
    """Each queue of the sample has its units where they were: an intact record's unit unchanged, a lost one's
    pointing at its placeholder (same offset and size, the lost tag's hash) — unless the scenario left nothing."""
    _, _, queues = PRISTINE
    if not out.commitlog.segments:
        return
    lost_hash = java_string_hash(LOST_TAG)
    for (topic, qid), units in queues.items():
        if not len(units):
            continue
        got = _units(out, topic, qid)
        assert len(got) == len(units), (topic, qid)
        for a, b in zip(units, got, strict=True):
            assert (a["physical_offset"], a["size"]) == (b["physical_offset"], b["size"])
            if any(s <= a["physical_offset"] < e for s, e in lost):
                # a placeholder: the lost tag (a record too small for it carries none), a schedule level's time
                tags = out.commitlog.message_at(int(b["physical_offset"])).properties.get("TAGS")
                if topic != "SCHEDULE_TOPIC_XXXX":
                    assert tags in (LOST_TAG, None)
                    assert b["tags_code"] == (lost_hash if tags else 0)
            elif not any(s <= a["physical_offset"] < e for s, e in suspect):
                assert a["tags_code"] == b["tags_code"]
