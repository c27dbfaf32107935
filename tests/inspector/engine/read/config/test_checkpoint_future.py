"""A checkpoint in the future (issue 29, bad input): which times are past this machine's clock by more than a day,
and what an abnormal start does with them, said in one line (info and preflight show it)."""

from __future__ import annotations

from inspector.engine.model.records import CheckpointInfo
from inspector.engine.read.config.checkpoint import FUTURE_SLACK_MS, future_note, future_times

NOW = 1_758_301_227_001  # 2025-09-19


def _cp(physic: int, logics: int, index: int) -> CheckpointInfo:
    return CheckpointInfo("checkpoint", 4096, physic, logics, index, 0, 0)


def test_a_day_of_clock_skew_is_no_future() -> None:
    assert future_times(_cp(NOW + FUTURE_SLACK_MS, NOW, 0), NOW) == []
    assert future_note(_cp(NOW + FUTURE_SLACK_MS, NOW, 0), NOW) is None
    assert future_note(None, NOW) is None


def test_each_time_past_the_clock_is_named_with_its_offset() -> None:
    late = NOW + FUTURE_SLACK_MS + 1
    assert future_times(_cp(late, NOW, late), NOW) == [("physicMsgTimestamp", 0, late), ("indexMsgTimestamp", 16, late)]


def test_the_note_says_what_an_abnormal_start_does() -> None:
    late = 4_102_444_800_000  # 2100-01-01
    both = future_note(_cp(late, late, NOW), NOW)
    assert both.startswith(f"checkpoint in the future: physicMsgTimestamp {late} (2100-01-01")
    assert "recovers from the newest segment only (CommitLog.isMappedFileMatchedRecover)" in both
    assert "IndexService.load" not in both  # the index time is not in the future: files past it are destroyed
    index_only = future_note(_cp(NOW, NOW, late), NOW)
    assert "destroys no index file" in index_only and "isMappedFileMatchedRecover" not in index_only
    # one of the two recovery times is not in the future: the recovery's bar (the smaller one) is not either
    assert "isMappedFileMatchedRecover" not in future_note(_cp(late, NOW, NOW), NOW)
