"""The committed teaching store ``sample_store/``: reproducible, and it holds what its README promises.

(a) The committed store files hash to a recorded SHA-256, and regenerating with
``scripts/make_sample_store.py`` from its scenario ``scripts/sample_store.toml`` gives byte-identical files
and the same generated README section. (b) Every promised feature is found in the committed store through the read-only engine
``Store`` (discovered from the data where possible, not taken from the script), and every ``rmq-inspect``
command in the README runs with the documented exit code.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from external_tools import import_or_skip

from inspector.engine import Message, Store
from inspector.engine.maintain.write.encode import compress_body
from inspector.engine.read.commitlog.body import decompress_body
from parsers.java import index_key, index_key_hash, java_string_hash

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "sample_store"
SCRIPT = REPO / "scripts" / "make_sample_store.py"
BEGIN_MARK, END_MARK = "<!-- generated -->", "<!-- /generated -->"
# SHA-256 of every store file under sample_store/ (see _store_digest). Changing the scenario or the writer
# changes it on purpose: regenerate, check the README's claims still hold, and record the new value here.
STORE_SHA256 = "68e7c4b394cb8f7520b2fa4d39a0304e37251bf2e3253b0af4d3a50ac235d5d0"
DAY_START = 1_758_272_400_000  # 2025-09-19 09:00:00 UTC
HALF, OP, SCHEDULE = "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "SCHEDULE_TOPIC_XXXX"


@pytest.fixture(scope="module")
def store():
    s = Store(SAMPLE)
    yield s
    s.close()


@pytest.fixture(scope="module")
def messages(store) -> list[Message]:
    return [e for e in store.entries() if isinstance(e, Message)]


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file() and p.name != "README.md"}


def _store_digest(root: Path) -> str:
    """One SHA-256 over the store's files, sorted by relative path: path, size and bytes of each.

    README.md is left out: it is prose, edited by hand outside its generated section (which
    test_regenerating_gives_identical_bytes compares). Everything else (commitlog, consumequeue, index,
    config, checkpoint, lock) is what a broker would read, so any change to it is a change of the store.
    """
    digest = hashlib.sha256()
    for name, path in sorted(_files(root).items()):
        data = path.read_bytes()
        digest.update(b"%s\0%d\0" % (name.encode("utf-8"), len(data)))
        digest.update(data)
    return digest.hexdigest()


def _generated(readme: Path) -> str:
    text = readme.read_text(encoding="utf-8")
    return text[text.index(BEGIN_MARK):text.index(END_MARK)]


# --- (a) reproducible ---------------------------------------------------------------------------------------


def _codecs_reproduce(messages: list[Message]) -> str | None:
    """None if this environment's codecs re-create the committed compressed bodies, else why not."""
    for msg in messages:
        if msg.compressed:
            codec = msg.compression.lower()
            if compress_body(decompress_body(msg), codec) != msg.body:
                return f"this environment's {codec} library compresses differently from the one that made the store"
    return None


def test_committed_store_has_the_recorded_hash():
    assert _store_digest(SAMPLE) == STORE_SHA256, "sample_store/ changed: see STORE_SHA256"


def test_regenerating_gives_identical_bytes(tmp_path, messages):
    import_or_skip("lz4.frame")
    import_or_skip("zstandard")
    reason = _codecs_reproduce(messages)
    if reason:
        pytest.skip(reason)
    out = tmp_path / "regenerated"
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True, timeout=120)
    committed, fresh = _files(SAMPLE), _files(out)
    assert list(fresh) == list(committed)
    different = [name for name in committed if committed[name].read_bytes() != fresh[name].read_bytes()]
    assert different == []
    assert _generated(out / "README.md") == _generated(SAMPLE / "README.md")


def test_regenerating_keeps_the_readme_and_foreign_files(tmp_path):
    import_or_skip("lz4.frame")
    import_or_skip("zstandard")
    out = tmp_path / "store"
    out.mkdir()
    (out / "README.md").write_text(f"# mine\n\nintro\n\n{BEGIN_MARK}\nstale\n{END_MARK}\n\noutro\n", encoding="utf-8")
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    (out / "commitlog").mkdir()
    (out / "commitlog" / "00000000000000999999").write_bytes(b"old")
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True, timeout=120)
    text = (out / "README.md").read_text(encoding="utf-8")
    assert text.startswith("# mine\n\nintro\n\n") and text.endswith("\n\noutro\n")
    assert "stale" not in text and "## Teaching cases" in text
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert not (out / "commitlog" / "00000000000000999999").exists()
    assert not list(tmp_path.glob(".sample_store-*"))  # the work directory is gone


# --- (b) what the store holds ---------------------------------------------------------------------------------


def test_small(store):
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 5 * 1024 * 1024


def test_store_is_healthy_and_cleanly_shut_down(store, messages):
    assert store.problems() == []
    assert all(not scan.problems for scan in store.scans())
    assert all(m.body_crc_ok and m.physical_offset == m.stored_physical_offset for m in messages)
    assert store.clean_shutdown and not (SAMPLE / "abort").exists()
    cp = store.checkpoint()
    assert cp is not None and cp.file_size == 4096
    assert cp.physic_msg_timestamp == messages[-1].store_timestamp
    full = [r for r in store.index_files() if r.header.index_count >= r.item_count]
    assert cp.index_msg_timestamp == full[-1].header.end_timestamp


def test_a_realistic_day(messages):
    assert 300 <= len(messages) <= 1000
    stored = [m.store_timestamp for m in messages]
    assert stored == sorted(stored) and stored[0] >= DAY_START and stored[-1] - stored[0] > 6 * 3600_000
    gaps = sorted(m.store_timestamp - m.born_timestamp for m in messages)
    assert gaps[0] >= 0 and gaps[len(gaps) // 2] < 10  # born a few ms before stored (copies keep the original's)
    topics = {m.topic for m in messages}
    assert {"OrderEvents", "PaymentEvents", "InventoryEvents"} <= topics
    orders = [m for m in messages if m.topic == "OrderEvents"]
    assert {m.queue_id for m in orders} == {0, 1, 2, 3}
    assert {"created", "paid", "shipped"} <= {m.tags for m in orders}
    assert sum(len(m.keys) >= 2 for m in messages) > len(messages) // 2
    body = json.loads(orders[0].body)
    assert body["orderId"] in orders[0].keys and "amount" in body


def test_segments_end_in_blanks(store):
    scans = store.scans()
    assert len(scans) >= 3
    for scan in scans[:-1]:  # every sealed segment ends with a BLANK that reaches the end of the file
        assert scan.blank_position is not None
        assert scan.blank_position + scan.blank_size == scan.segment.file_size
    last = scans[-1]
    assert last.blank_position is None and last.data_end < last.segment.file_size
    tail = (SAMPLE / last.segment.file).read_bytes()[last.data_end:]
    assert tail == bytes(len(tail))  # the active segment ends in zeros


def test_some_consume_queue_rolled_to_a_second_file(store):
    rolled = [q for q in store.queue_infos() if len(q.files) >= 2]
    assert rolled
    q = rolled[0]
    units = store.queue(q.topic, q.queue_id).units(0)
    assert [u.queue_offset for u in units] == list(range(q.max_offset))


def test_index_files(store):
    readers = store.index_files()
    assert len(readers) >= 2
    assert readers[0].header.index_count == readers[0].item_count  # the first one is full


def _keys_by_hash(store) -> dict[tuple[str, int], set[str]]:
    """(index file, keyHash) -> every distinct topic#key string with that hash, read from the messages."""
    result: dict[tuple[str, int], set[str]] = defaultdict(set)
    for reader in store.index_files():
        for item in reader.items():
            msg = store.message_at(item.phy_offset)
            for key in [msg.unique_key, *msg.keys]:
                full = index_key(msg.topic, key)
                if key and index_key_hash(full) == item.key_hash:
                    result[(reader.name, item.key_hash)].add(full)
    return result


def test_a_real_hash_collision(store):
    collisions = [keys for keys in _keys_by_hash(store).values() if len(keys) >= 2]
    assert collisions
    first, second = sorted(collisions[0])
    assert first != second and java_string_hash(first) == java_string_hash(second)
    topic, key = first.split("#", 1)
    steps = [s for walk in store.chain(topic, key) for s in walk.steps]
    assert any(s.hash_matches and s.key_matches is False for s in steps)
    assert any(s.hash_matches and s.key_matches for s in steps)
    hits = store.lookup_key(topic, key)
    assert hits and all(key in h.message.keys or key == h.message.unique_key for h in hits)


def test_slots_shared_by_different_hashes_and_long_chains(store):
    longest = 0
    other_hash = False
    for reader in store.index_files():
        for item in reader.items():
            msg = store.message_at(item.phy_offset)
            key = msg.keys[0] if msg.keys else msg.unique_key
            walk = next(w for w in store.chain(msg.topic, key) if w.file == reader.rel)
            longest = max(longest, len(walk.steps))
            other_hash = other_hash or any(not s.hash_matches for s in walk.steps)
        if longest >= 3 and other_hash:
            break
    assert longest >= 3 and other_hash


def test_the_seed_articles_example(store):
    """Items 1-6 of the first index file go to slots {16,29,29,8,16,16}, chained as in the article."""
    reader = store.index_files()[0]
    items = [reader.item(n) for n in range(1, 7)]
    assert [i.key_hash % reader.slot_count for i in items] == [16, 29, 29, 8, 16, 16]
    assert [i.prev_index for i in items] == [0, 0, 2, 0, 1, 5]


def test_ipv6_born_host(messages):
    v6 = [m for m in messages if ":" in m.born_host.ip]
    assert v6
    msg = v6[0]
    assert msg.sys_flag & 0x10 and not msg.sys_flag & 0x20
    assert msg.unique_key and len(msg.unique_key) == 56


def test_compressed_bodies(messages):
    by_codec = {m.compression: m for m in messages if m.compressed}
    zlib_msg = by_codec["ZLIB"]
    body = decompress_body(zlib_msg)
    assert len(body) >= 4096 and len(zlib_msg.body) < len(body)
    json.loads(body)
    for codec, module in (("LZ4", "lz4.frame"), ("ZSTD", "zstandard")):
        import_or_skip(module)
        assert len(decompress_body(by_codec[codec])) >= 4096


def test_delayed_message(store, messages):
    units = store.queue(SCHEDULE, 2).units(0)
    parked = [(u, store.message_at(u.physical_offset)) for u in units]
    assert parked
    for unit, msg in parked:
        assert msg.properties["DELAY"] == "3" and msg.properties["REAL_TOPIC"]
        assert unit.tags_code == msg.store_timestamp + 10_000
    user = [m for _u, m in parked if m.properties["REAL_TOPIC"] == "OrderEvents"]
    assert user
    # ScheduleMessageService delivered it 10 s later into the real topic, same UNIQ_KEY
    delivered = [m for m in messages if m.topic == "OrderEvents" and m.unique_key == user[0].unique_key]
    assert delivered and delivered[0].store_timestamp >= user[0].store_timestamp + 10_000
    assert store.config.delay_offsets[3] == store.queue(SCHEDULE, 2).info().max_offset


def test_transactions(store, messages):
    halves = {m.physical_offset: m for m in messages if m.topic == HALF}
    assert halves and all(m.queue_id == 0 and m.properties["TRAN_MSG"] == "true" and m.transaction == "NOT_TYPE"
                          for m in halves.values())
    commits = [m for m in messages if m.transaction == "COMMIT"]
    assert commits
    ops = [m for m in messages if m.topic == OP]
    assert ops and all(m.body.endswith(b",") and m.tags == "d" for m in ops)
    decided = {int(part) for m in ops for part in m.body.decode().split(",") if part}
    for commit in commits:
        half = halves[commit.prepared_transaction_offset]
        assert commit.topic == half.properties["REAL_TOPIC"] and commit.unique_key == half.unique_key
        assert half.queue_offset in decided
    committed = {c.prepared_transaction_offset for c in commits}
    rolled_back = [h for off, h in halves.items() if off not in committed]
    assert rolled_back and all(h.queue_offset in decided for h in rolled_back)
    assert not [m for m in messages if m.topic != HALF and m.unique_key == rolled_back[0].unique_key]


def test_retry_and_dlq(store, messages):
    retry = [m for m in messages if m.topic.startswith("%RETRY%")]
    dlq = [m for m in messages if m.topic.startswith("%DLQ%")]
    assert retry and dlq
    for msg in retry + dlq:
        assert msg.reconsume_times > 0
        assert msg.properties["RETRY_TOPIC"] == "PaymentEvents"
        original = store.find(msg.properties["ORIGIN_MESSAGE_ID"])
        assert original.topic == "PaymentEvents" and original.unique_key == msg.unique_key
        assert original.body == msg.body and original.born_timestamp == msg.born_timestamp
    group = dlq[0].topic.removeprefix("%DLQ%")
    assert retry[0].topic == f"%RETRY%{group}" and dlq[0].reconsume_times > max(m.reconsume_times for m in retry)
    # each hop was parked in SCHEDULE_TOPIC_XXXX queue level - 1, level = 3 + reconsumeTimes of the failed message
    hops = [m for m in messages if m.topic == SCHEDULE and m.properties.get("REAL_TOPIC") == retry[0].topic]
    assert hops and all(m.queue_id == 3 + (m.reconsume_times - 1) - 1 for m in hops)
    assert len(hops) == len(retry)


def test_consumer_offsets_and_lag(store):
    rows = store.consumer_lag()
    groups = {r["group"] for r in rows}
    assert len(groups - {"CID_RMQ_SYS_TRANS"}) >= 2
    assert any(r["lag"] > 0 for r in rows) and any(r["lag"] == 0 for r in rows)
    text = (SAMPLE / "config" / "consumerOffset.json").read_text(encoding="utf-8")
    assert re.search(r"\{0:\d+,1:\d+", text)  # fastjson's unquoted integer keys


def test_readme_commands_run(capsys, monkeypatch):
    from inspector.cli.main import main

    monkeypatch.chdir(REPO)
    commands = [line for line in _generated(SAMPLE / "README.md").splitlines() if line.startswith("rmq-inspect ")]
    assert len(commands) >= 20
    for line in commands:
        command, _, comment = line.partition("    # ")
        expected = 1 if "exit code 1" in comment else 0
        assert main(shlex.split(command)[1:]) == expected, line
        capsys.readouterr()


def test_verify_is_clean_and_rebuild_reproduces_it(tmp_path, capsys):
    """Issue 3's promise on the committed store: `verify` clean; `rebuild` gives its consume queues byte for
    byte and its index files item for item (same slots, chains and header counters)."""
    from inspector.cli.main import main
    from inspector.engine.maintain.rebuild.rebuild import rebuild
    from inspector.engine.maintain.verify.verify import verify

    with Store(SAMPLE) as s:
        report = verify(s)
        assert report.problems == ()
        assert report.messages == 402
        result = rebuild(s, tmp_path / "out")
        originals = [(r.header, r.items(), [r.slot_value(n) for n in range(r.slot_count)]) for r in s.index_files()]
    assert main(["verify", str(SAMPLE)]) == 0
    capsys.readouterr()
    for cq in sorted(p for p in (SAMPLE / "consumequeue").rglob("*") if p.is_file()):
        rel = cq.relative_to(SAMPLE)
        assert (tmp_path / "out" / rel).read_bytes() == cq.read_bytes(), rel
    assert len(result.cq_files) == len([p for p in (SAMPLE / "consumequeue").rglob("*") if p.is_file()])
    with Store(tmp_path / "out") as rebuilt:
        again = [(r.header, r.items(), [r.slot_value(n) for n in range(r.slot_count)]) for r in rebuilt.index_files()]
    assert again == originals and len(again) == 3
