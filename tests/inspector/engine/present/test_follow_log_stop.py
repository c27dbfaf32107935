"""follow_log's ``stop`` hook: asked after each poll, after that poll's messages were yielded (the TUI's follow
mode hands over a poll's messages there and stops when its worker is cancelled)."""

from __future__ import annotations

from pathlib import Path

from inspector.engine import Message, Store, follow_log

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"


def test_stop_is_asked_after_each_poll_with_its_messages_already_yielded():
    with Store(SAMPLE) as store:
        start = store.segments[-1].start_offset
        seen: list[int] = []
        asked: list[int] = []

        def stop() -> bool:
            asked.append(len(seen))
            return True  # after the first poll

        for item in follow_log(store, start, interval=0.01, stop=stop):
            if isinstance(item, Message):
                seen.append(item.physical_offset)
    assert asked == [78]  # the last segment's 78 records, then one question
    assert seen[0] == start and seen[-1] == 164440
