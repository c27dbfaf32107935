"""``messages --json`` encodes clean batches in bulk (``engine.json_lines``): its output must be byte for byte what
the message-by-message path gives (``message_view`` + ``json.dumps``), on the sample store and on every damaged
copy, with --limit, --from, --topic, --topic/--queue and --decompress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from damage_scenarios import SAMPLE

from inspector.cli.main import main
from inspector.engine import Message, Problem, Store, json_text, message_view


def reference(root: Path, topic=None, queue=None, start=None, limit=100, decompress=False) -> bytes:
    """What ``messages --json`` printed before the bulk path: one message at a time, the json module."""
    out = []
    with Store(root) as store:
        if topic is not None and queue is not None:
            stream = (item for _unit, item in store.queue_messages(topic, queue, start or 0))
        else:
            def walk():
                yield from store.commitlog.problems
                for e in store.entries(start):
                    if isinstance(e, Problem) or (isinstance(e, Message) and (topic is None or e.topic == topic)):
                        yield e
            stream = walk()
        shown = 0
        for item in stream:
            if isinstance(item, Problem):
                continue
            if shown >= limit:
                break
            shown += 1
            text = json.dumps(message_view(item, decompress=decompress), ensure_ascii=False, separators=(",", ":"))
            out.append(json_text(text) + "\n")
    return "".join(out).encode()


def cases(root: Path) -> list[tuple[list[str], dict]]:
    with Store(root) as store:
        msgs = [e for e in store.entries() if isinstance(e, Message)][:300]
        queues = store.queue_ids()
    middle = msgs[len(msgs) // 2].physical_offset if msgs else 0
    topic, queue = queues[0] if queues else ("OrderEvents", 0)
    out = [
        (["--limit", "1000000"], dict(limit=1_000_000)),
        ([], {}),
        (["--limit", "7"], dict(limit=7)),
        (["--limit", "1"], dict(limit=1)),  # (0 is refused: a limit is a count >= 1)
        (["--limit", "1000000", "--decompress"], dict(limit=1_000_000, decompress=True)),
        (["--from", str(middle), "--limit", "1000000"], dict(start=middle, limit=1_000_000)),
        (["--topic", topic, "--limit", "1000000"], dict(topic=topic, limit=1_000_000)),
        (["--topic", topic, "--limit", "3"], dict(topic=topic, limit=3)),
        (["--topic", topic, "--queue", str(queue), "--limit", "1000000"], dict(topic=topic, queue=queue,
                                                                             limit=1_000_000)),
        (["--topic", "no-such-topic"], dict(topic="no-such-topic")),
    ]
    return out


def command(capsysbinary, root: Path, argv: list[str]) -> bytes:
    code = main(["messages", str(root), "--json", *argv])
    out, _ = capsysbinary.readouterr()
    assert code == 0
    return out


def test_sample_store_lines_equal_the_per_message_path(capsysbinary):
    for argv, kw in cases(SAMPLE):
        assert command(capsysbinary, SAMPLE, argv) == reference(SAMPLE, **kw), argv


def test_damaged_store_lines_equal_the_per_message_path(damaged, capsysbinary):
    _scenario, root, _damage = damaged
    try:
        with Store(root):
            pass
    except Exception:  # noqa: BLE001 - a store the engine refuses to open is the other suite's business
        pytest.skip("the damaged copy does not open as a store")
    for argv, kw in cases(root):
        assert command(capsysbinary, root, argv) == reference(root, **kw), argv
