"""The JSON API: the CLI's --json field names, 64-bit offsets as strings, bounded responses."""

from __future__ import annotations

import base64

import pytest

from inspector.engine.present.views import chain_view, message_view
from inspector.engine.workshop.teaching import build_steps
from web.offsets import is_offset_field

pytestmark = pytest.mark.timeout(60)


def get_json(client, url: str, status: int = 200):
    r = client.get(url)
    assert r.status_code == status, r.data[:500]
    assert r.mimetype == "application/json"
    return r.get_json()


def offsets_are_strings(value, path="") -> list[str]:
    """Paths of offset fields that are not strings (or null)."""
    bad = []
    if isinstance(value, dict):
        for k, v in value.items():
            if is_offset_field(k) and not (v is None or isinstance(v, str)):
                bad.append(f"{path}.{k}")
            bad.extend(offsets_are_strings(v, f"{path}.{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            bad.extend(offsets_are_strings(v, f"{path}[{i}]"))
    return bad


def test_overview_has_the_info_fields(client, sample_store):
    d = get_json(client, "/api/")
    assert {"store", "segment_size", "segments", "min_physical_offset", "max_physical_offset", "topics", "index_files",
            "checkpoint", "abort_file", "lock_file", "clean_shutdown", "recovery", "consumer_groups", "problems"} <= set(d)
    from inspector.engine.present.overview import store_overview

    assert set(store_overview(sample_store)) <= set(d)  # the engine's one definition, same names as info --json
    assert d["max_physical_offset"] == str(sample_store.max_offset())
    assert [s["start_offset"] for s in d["segments"]] == [str(s.start_offset) for s in sample_store.segments]
    assert offsets_are_strings(d) == []
    assert len(d["consumer_groups"]) == len(sample_store.consumer_lag())


def test_message_has_message_view_fields_with_string_offsets(client, sample_messages):
    msg = sample_messages[5]
    d = get_json(client, f"/api/message/{msg.physical_offset}")
    expected = message_view(msg, decompress=True)
    assert set(expected) <= set(d)
    assert d["physical_offset"] == str(msg.physical_offset)
    assert d["queue_offset"] == str(msg.queue_offset)
    assert d["prepared_transaction_offset"] == str(msg.prepared_transaction_offset)
    assert d["store_timestamp"] == msg.store_timestamp  # timestamps stay numbers
    assert d["properties"] == msg.properties
    assert base64.b64decode(d["body_base64"]) == msg.body
    assert offsets_are_strings(d) == []


def test_message_body_is_capped(sample_store, sample_messages):
    from web.app import create_app
    from web.data import Limits

    msg = max(sample_messages, key=lambda m: len(m.body))
    client = create_app(sample_store, {"LIMITS": Limits(body_bytes=64)}).test_client()
    d = get_json(client, f"/api/message/{msg.physical_offset}")
    assert len(base64.b64decode(d["body_base64"])) == 64 and d["body_truncated"] is True
    assert d["body_length"] == len(msg.body)


def test_messages_queue_page(client, sample_store):
    topic, queue_id = sample_store.queue_ids()[0]
    info = sample_store.queue(topic, queue_id).info()
    d = get_json(client, f"/api/messages?topic={topic}&queue={queue_id}&limit=2".replace("%", "%25"))
    assert d["order"] == "queue" and len(d["messages"]) == min(2, info.message_count)
    if info.message_count > 2:
        assert d["next_from"] == str(info.min_offset + 2)
    assert offsets_are_strings(d) == []


def test_messages_commitlog_page_caps_bodies(client, sample_messages):
    d = get_json(client, "/api/messages?limit=500")
    assert len(d["messages"]) == min(500, len(sample_messages))
    assert all(len(base64.b64decode(m["body_base64"])) <= 256 for m in d["messages"])
    assert d["messages"][0]["physical_offset"] == str(sample_messages[0].physical_offset)


def test_hex(client, sample_messages):
    msg = sample_messages[1]
    d = get_json(client, f"/api/hex?offset={msg.physical_offset}&length=128")
    assert {"offset", "length", "bytes_hex", "regions"} <= set(d)
    assert d["current"]["start"] == str(msg.physical_offset) and d["current"]["kind"] == "message"
    assert d["next_offset"] == str(msg.end_offset)
    assert d["prev_offset"] == str(sample_messages[0].physical_offset)
    first = next(r for r in d["regions"] if r["start"] == str(msg.physical_offset))
    assert [f["name"] for f in first["fields"]][:2] == ["TOTALSIZE", "MAGICCODE"]
    assert len(bytes.fromhex(d["bytes_hex"])) == d["length"] == 128
    assert offsets_are_strings(d) == []


def test_chain_has_the_chain_json_fields_and_kinds(client, sample_store, colliding_key):
    topic, key, _ = colliding_key
    d = get_json(client, f"/api/chain?topic={topic}&key={key}")
    walks = sample_store.chain(topic, key)
    assert d["key_string"] == f"{topic}#{key}" and d["key_hash"] == walks[0].key_hash
    for f, walk in zip(d["files"], walks, strict=True):
        view = chain_view(walk)
        assert set(view) <= set(f)
        assert [it["item"] for it in f["items"]] == [it["item"] for it in view["items"]]
        assert [it["phy_offset"] for it in f["items"]] == [str(it["phy_offset"]) for it in view["items"]]
    kinds = [it["kind"] for f in d["files"] for it in f["items"]]
    assert "collision" in kinds and "match" in kinds
    assert offsets_are_strings(d) == []


def test_chain_items_are_capped(sample_store):
    from web.app import create_app
    from web.data import Limits

    reader = sample_store.index_files()[0]
    item = reader.item(1)
    msg = sample_store.message_at(item.phy_offset)
    key = msg.keys[0] if msg.keys else msg.unique_key
    client = create_app(sample_store, {"LIMITS": Limits(max_chain_items=1)}).test_client()
    d = get_json(client, f"/api/chain?topic={msg.topic}&key={key}")
    assert all(len(f["items"]) <= 1 for f in d["files"])
    assert any(f["items_truncated"] for f in d["files"]) == any(f["item_total"] > 1 for f in d["files"])


def test_slot(client, sample_store):
    reader = sample_store.index_files()[0]
    d = get_json(client, f"/api/slot?file={reader.name}&slot=3")
    assert d["index_file"]["name"] == reader.name and d["slot"]["slot"] == 3
    assert d["slot"]["slot_value"] == reader.slot_value(3)
    assert len(d["occupancy"]) == min(128, reader.slot_count)
    assert offsets_are_strings(d) == []
    names = get_json(client, "/api/slot")["index_files"]
    assert names == [r.name for r in sample_store.index_files()]
    assert get_json(client, f"/api/slot?file={reader.name}")["slot"] is None


def test_teach(client):
    d = get_json(client, "/api/teach?hashes=16,29,29,8,16,16&slots=32&step=3")
    steps = build_steps([16, 29, 29, 8, 16, 16], 32)
    assert d["state"]["slots"] == list(steps[2].slots)
    assert d["state"]["items"] == [{"item": i.number, "key_hash": i.key_hash, "prev_index": i.prev_index}
                                   for i in steps[2].items]
    assert d["prev_step"] == 2 and d["next_step"] == 4
    assert d["lookup"] == {"key_hash": 29, "slot": 29, "visited": [3, 2], "matches": [3, 2]}


def test_resolve(client, sample_messages):
    msg = sample_messages[0]
    d = get_json(client, f"/api/resolve?id={msg.msg_id}")
    assert {"id", "kind", "ip", "port", "offset", "offset_msg_id", "unique_key", "found_as", "physical_offset"} <= set(d)
    assert d["physical_offset"] == str(msg.physical_offset) and "offset_msg_id" in d["found_as"]
    assert d["offset_msg_id"]["offset"] == str(msg.stored_physical_offset)
    d = get_json(client, f"/api/resolve?id={msg.unique_key}")
    assert d["found_as"] == ["unique_key"] and d["unique_key"]["physical_offset"] == str(msg.physical_offset)


def test_offsets_above_two_to_the_53_survive_as_strings():
    from web.offsets import stringify_offsets

    big = (1 << 63) - 1
    out = stringify_offsets({"physical_offset": big, "items": [{"phy_offset": big, "key_hash": 5}], "flag": True,
                             "next_offset": None, "store_timestamp": 7})
    assert out == {"physical_offset": str(big), "items": [{"phy_offset": str(big), "key_hash": 5}], "flag": True,
                   "next_offset": None, "store_timestamp": 7}


def _walk_pages(client, url: str) -> list[str]:
    seen, next_from = [], None
    for _ in range(1000):
        d = get_json(client, url + ("" if next_from is None else f"&from={next_from}"))
        seen.extend(m["physical_offset"] for m in d["messages"])
        next_from = d["next_from"]
        if next_from is None:
            return seen
    raise AssertionError("pagination does not end")


def test_paging_visits_every_message_once(sample_store, sample_messages):
    from web.app import create_app
    from web.data import Limits

    client = create_app(sample_store, {"LIMITS": Limits(scan_entries=7)}).test_client()
    topic = sample_messages[-1].topic
    assert _walk_pages(client, f"/api/messages?topic={topic}&limit=4") == [
        str(m.physical_offset) for m in sample_messages if m.topic == topic]
    assert _walk_pages(client, "/api/messages?limit=50") == [str(m.physical_offset) for m in sample_messages]
    t, q = sample_messages[0].topic, sample_messages[0].queue_id
    assert _walk_pages(client, f"/api/messages?topic={t}&queue={q}&limit=6") == [
        str(m.physical_offset) for _, m in sample_store.queue_messages(t, q)]


def test_resolve_of_an_id_retention_removed_says_expired(tmp_path):
    """An offset msgId below the log's first offset of an aged store (tests/aged_store.py): a 404 that says
    "expired", and one above the log: "no message"."""
    from aged_store import age_store, write_store

    from inspector.engine import Store
    from web.app import create_app

    written = write_store(tmp_path / "s")
    aged = age_store(tmp_path / "s", 2)
    with Store(tmp_path / "s") as store:
        head = store.message_at(aged.first_offset).msg_id[:16]
        client = create_app(store, {"TESTING": True}).test_client()
        gone = client.get(f"/api/resolve?id={head}{written[0].physical_offset:016X}")
        absent = client.get(f"/api/resolve?id={head}{10**9:016X}")
    assert gone.status_code == absent.status_code == 404
    assert f"below the log's first offset {aged.first_offset}" in gone.get_json()["message"]
    assert absent.get_json()["message"].startswith("no message with id")


def test_api_index_lists_its_endpoints(client, app):
    d = get_json(client, "/api/")
    rules = {str(r) for r in app.url_map.iter_rules() if str(r).startswith("/api/")}
    assert set(d["endpoints"]) == rules and "/api/hex" in rules and "/api/message/<offset>" in rules
