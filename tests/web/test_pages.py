"""Every HTML page on the sample store, with what it shows checked against the engine."""

from __future__ import annotations

import re
from html import unescape

import pytest

from inspector.engine import Message
from inspector.engine.present.layout import regions
from inspector.engine.workshop.teaching import DEFAULT_HASHES, DEFAULT_SLOTS, build_steps

pytestmark = pytest.mark.timeout(60)


def text_of(response) -> str:
    assert response.status_code == 200, response.data[:500]
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def test_overview_lists_segments_queues_index_files_checkpoint_consumers(client, sample_store):
    html = text_of(client.get("/"))
    for seg in sample_store.segments:
        assert seg.name in html
    for info in sample_store.queue_infos():
        assert f"/messages?topic={info.topic}&amp;queue={info.queue_id}".replace("%", "%25") in html
    for reader in sample_store.index_files():
        assert f"/slot?file={reader.name}" in html
    assert "clean (no abort file)" in html if sample_store.clean_shutdown else "unclean" in html
    cp = sample_store.checkpoint()
    assert str(cp.physic_msg_timestamp) in html
    from inspector.engine.read.store.answers import recover

    assert f'/hex?offset={recover(sample_store).end_offset}">{recover(sample_store).end_offset}</a>' in html
    lagging = [row for row in sample_store.consumer_lag() if row["lag"]]
    assert html.count('class="lagging"') == len(lagging)


def test_messages_in_queue_order_are_paged(client, sample_store):
    topic, queue_id = max(sample_store.queue_ids(), key=lambda q: sample_store.queue(*q).info().message_count)
    info = sample_store.queue(topic, queue_id).info()
    html = text_of(client.get(f"/messages?topic={topic}&queue={queue_id}&limit=5"))
    expected = [m.physical_offset for _, m in zip(range(5), (m for _, m in sample_store.queue_messages(topic, queue_id)),
                                                    strict=False)]
    assert [int(o) for o in re.findall(r'<tr data-offset="(\d+)"', html)] == expected
    assert f"from={info.min_offset + 5}" in html  # next page link
    second = text_of(client.get(f"/messages?topic={topic}&queue={queue_id}&limit=5&from={info.min_offset + 5}"))
    assert "previous page" in second
    assert str(sample_store.queue_messages(topic, queue_id, info.min_offset + 5).__next__()[1].physical_offset) in second


def test_messages_in_commitlog_order_from_a_physical_offset(client, sample_messages):
    start = sample_messages[10]
    html = text_of(client.get(f"/messages?from={start.physical_offset}&limit=3"))
    shown = [int(o) for o in re.findall(r'<tr data-offset="(\d+)"', html)]
    assert shown == [m.physical_offset for m in sample_messages[10:13]]
    assert f"from={sample_messages[13].physical_offset}" in html


def test_messages_of_one_topic_in_commitlog_order(client, sample_messages):
    topic = sample_messages[0].topic
    html = text_of(client.get(f"/messages?topic={topic}&limit=4"))
    shown = [int(o) for o in re.findall(r'<tr data-offset="(\d+)"', html)]
    assert shown == [m.physical_offset for m in sample_messages if m.topic == topic][:4]


def test_message_detail_shows_every_field_properties_and_body(client, sample_messages):
    msg = next(m for m in sample_messages if m.keys and not m.compressed)
    html = text_of(client.get(f"/message/{msg.physical_offset}"))
    for name in ("physical_offset", "queue_offset", "store_host", "born_host", "msg_id", "unique_key", "body_crc_ok"):
        assert f'data-field="{name}"' in html
    assert msg.msg_id in html and msg.topic in html
    for k, v in msg.properties.items():
        assert f"<th>{k}</th><td>{v}</td>" in unescape(html)
    assert unescape(re.search(r'<pre class="body" id="body">(.*?)</pre>', html, re.S).group(1)) == msg.body.decode()
    assert f"/hex?offset={msg.physical_offset}" in html


@pytest.mark.parametrize("fmt", ["text", "json", "hex"])
def test_compressed_body_in_each_format(client, sample_messages, fmt):
    msg = next(m for m in sample_messages if m.compression == "ZLIB")
    html = text_of(client.get(f"/message/{msg.physical_offset}?body={fmt}"))
    body = unescape(re.search(r'<pre class="body" id="body">(.*?)</pre>', html, re.S).group(1))
    assert "ZLIB-decompressed" in html
    if fmt == "hex":
        assert body.startswith("00000000  7b")  # '{'
    elif fmt == "json":
        assert body.startswith("{\n  ")
    else:
        assert body.startswith("{")


def test_body_is_capped(sample_store, sample_messages):
    from web.app import create_app
    from web.data import Limits

    msg = max(sample_messages, key=lambda m: len(m.body))
    client = create_app(sample_store, {"LIMITS": Limits(body_bytes=100)}).test_client()
    html = text_of(client.get(f"/message/{msg.physical_offset}"))
    assert re.search(r"First 100 of \d+ bytes shown", html)


def test_hex_page_tints_regions_labels_fields_and_marks_the_current_record(client, sample_messages, sample_store):
    msg = sample_messages[3]
    html = text_of(client.get(f"/hex?offset={msg.physical_offset}"))
    assert f'data-current-start="{msg.physical_offset}"' in html
    assert re.search(rf'<span class="r-message tint\d current rstart field" title="#1 TOTALSIZE = {msg.total_size}\n',
                     unescape(html))
    assert f'data-offset="{msg.physical_offset}"' in html
    assert 'title="#16b TOPIC = ' + msg.topic in html
    assert f"/hex?offset={msg.end_offset}" in html  # next record
    assert f"/hex?offset={sample_messages[2].physical_offset}" in html  # previous record


def test_hex_page_marks_blank_and_zero_runs(client, sample_store):
    scans = sample_store.scans()
    sealed = next(s for s in scans if s.blank_position is not None)
    blank_at = sealed.segment.start_offset + sealed.blank_position
    html = text_of(client.get(f"/hex?offset={blank_at}"))
    assert "r-blank" in html and "#2 MAGICCODE = CBD43194 (BLANK)" in html
    assert "next record" in html  # on to the next segment
    last = scans[-1]
    kinds = {r.kind for r in regions(sample_store.commitlog, last.valid_end_offset, last.valid_end_offset + 64)}
    assert "zero" in kinds
    html = text_of(client.get(f"/hex?offset={last.valid_end_offset}"))
    assert "r-zero" in html


def test_hex_jump_form_and_length(client):
    html = text_of(client.get("/hex?offset=0&length=64"))
    assert html.count('<div class="hexrow">') == 4
    assert '<form class="inline" method="get" action="/hex">' in html


def test_chain_page_draws_each_index_file_walk(client, sample_store, colliding_key):
    topic, key, _ = colliding_key
    html = text_of(client.get(f"/chain?topic={topic}&key={key}"))
    walks = sample_store.chain(topic, key)
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="chain"') == len(walks)
    assert html.count('class="item kind-') == sum(len(w.steps) for w in walks)
    collisions = sum(1 for w in walks for s in w.steps if s.hash_matches and s.key_matches is False)
    assert html.count('data-kind="collision"') == collisions >= 1
    assert html.count('<g class="mark">') == collisions
    matches = [s.item.phy_offset for w in walks for s in w.steps if s.key_matches]
    assert html.count('data-kind="match"') == len(matches) >= 1
    for off in matches:
        assert f'<a href="/message/{off}" class="box-link">' in html
    assert f"keyHash <strong id=\"key-hash\">{walks[0].key_hash}</strong>" in html


def test_chain_form_without_arguments(client):
    html = text_of(client.get("/chain"))
    assert '<input name="topic"' in html and "<svg" not in html


def test_slot_pages(client, sample_store):
    html = text_of(client.get("/slot"))
    names = [r.name for r in sample_store.index_files()]
    assert all(f"/slot?file={n}" in html for n in names)
    reader = sample_store.index_files()[0]
    html = text_of(client.get(f"/slot?file={reader.name}"))
    assert html.count('class="heat h') == min(128, reader.slot_count)
    from inspector.engine.read.index.slots import busiest_slots, walk_slot

    slot, count = busiest_slots(reader, 1)[0]
    html = text_of(client.get(f"/slot?file={reader.name}&slot={slot}"))
    chain = walk_slot(reader, slot)
    assert len(chain.items) == count
    assert html.count('<g class="item hash-') == count
    assert f'data-slot="{slot}" data-value="{chain.slot_value}"' in html


@pytest.mark.parametrize("step", range(len(DEFAULT_HASHES) + 1))
def test_teach_page_each_step(client, step):
    html = text_of(client.get(f"/teach?step={step}"))
    steps = build_steps(DEFAULT_HASHES, DEFAULT_SLOTS)
    slots = steps[step - 1].slots if step else (0,) * DEFAULT_SLOTS
    shown = {int(s): int(v) for s, v in re.findall(r'<g class="slot[^"]*" data-slot="(\d+)" data-value="(\d+)"', html)}
    assert shown == dict(enumerate(slots))
    assert html.count('<g class="item') == step
    if step:
        assert f'data-slot="{steps[step - 1].slot}" data-value="{step}"' in html
        assert 'class="slot used changed' in html
    if step < len(DEFAULT_HASHES):
        assert f"step={step + 1}" in html and 'id="next"' in html
    if step > 0:
        assert f"step={step - 1}" in html and 'id="prev"' in html


def test_teach_page_reproduces_the_seed_article_chains(client):
    html = text_of(client.get("/teach?hashes=16,29,29,8,16,16&slots=32&step=6&lookup=16"))
    walk = re.search(r'<ol class="walk" id="lookup-walk">(.*?)</ol>', html, re.S).group(1)
    assert re.findall(r'data-item="(\d+)"', walk) == ["6", "5", "1"]
    html = text_of(client.get("/teach?step=6&lookup=29"))
    walk = re.search(r'<ol class="walk" id="lookup-walk">(.*?)</ol>', html, re.S).group(1)
    assert re.findall(r'data-item="(\d+)"', walk) == ["3", "2"]
    assert re.search(r'data-item="6" data-hash="16" data-prev="5" data-visit="1"', html) is None  # lookup 29
    assert 'data-item="3" data-hash="29" data-prev="2" data-visit="1"' in html


def test_teach_page_with_own_hashes_and_small_table(client):
    html = text_of(client.get("/teach?hashes=5 9 13&slots=4&step=3"))
    assert 'data-slot="1" data-value="3"' in html  # 5, 9, 13 all land in slot 1
    assert 'data-item="3" data-hash="13" data-prev="2"' in html


def test_resolve_page_both_kinds(client, sample_messages):
    msg = sample_messages[0]
    html = text_of(client.get(f"/resolve?id={msg.msg_id}"))
    assert "Found</span> as offset_msg_id" in html
    assert f'id="message-link" href="/message/{msg.physical_offset}"' in html
    html = text_of(client.get(f"/resolve?id={msg.unique_key}"))
    assert "unique_key" in html and f'href="/message/{msg.physical_offset}"' in html
    assert "producer IP" in html and "counter" in html


def test_resolve_form_without_id(client):
    html = text_of(client.get("/resolve"))
    assert '<input name="id"' in html and 'id="verdict"' not in html


def test_static_files_are_served_locally(client):
    html = text_of(client.get("/"))
    assert "http://" not in re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", html)
    assert "https://" not in html
    for path in ("/static/style.css", "/static/app.js"):
        r = client.get(path)
        assert r.status_code == 200
        assert b"http" not in r.data
        r.close()


def test_message_list_rows_link_to_messages(client, sample_messages):
    html = text_of(client.get("/messages?limit=2"))
    for m in sample_messages[:2]:
        assert f'href="/message/{m.physical_offset}"' in html
    assert isinstance(sample_messages[0], Message)


def test_resolve_page_dates_a_found_unique_key_by_its_message(client, sample_messages):
    """issue 27: the UNIQ_KEY's month comes from the message found, not from today (id_overview's one answer)."""
    msg = sample_messages[0]
    html = text_of(client.get(f"/resolve?id={msg.unique_key}"))
    assert "(month of the message" in html and "guessed from today" not in html
    html = text_of(client.get(f"/resolve?id={msg.msg_id}"))
    # issue 33: the offset msgId found the message, so its UNIQ_KEY reading is dated by that message too
    assert "(month of the message" in html and "guessed from today" not in html


def test_chain_landing_suggests_a_key_of_the_open_store(client, hostile_client, hostile):
    html = unescape(text_of(client.get("/chain")))
    assert "the sample store's hash collision" in html and "key=coupon-Aa7K" in html
    _, facts = hostile
    html = hostile_client.get("/chain").get_data(as_text=True)  # another store: one of its own keys, never the sample's
    assert "coupon-Aa7K" not in html and "a key of this store" in html
    link = re.search(r'<a class="suggestion" href="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert hostile_client.get(link).status_code == 200


def test_messages_topic_picker_and_an_unknown_topic_said_at_once(client, sample_store):
    html = client.get("/messages").get_data(as_text=True)
    assert 'list="topic-names"' in html
    picker = html[html.index('<datalist id="topic-names">'):html.index("</datalist>")]
    assert re.findall(r'<option value="([^"]*)">', picker) == sample_store.topics()  # the store's own names
    html = unescape(client.get("/messages?topic=orderevents").get_data(as_text=True))
    assert "no topic 'orderevents' in this store" in html and "did you mean OrderEvents" in html
    assert 'id="topic-note"' not in client.get("/messages?topic=OrderEvents").get_data(as_text=True)


def test_messages_previous_page_and_newest_in_commitlog_order(client, sample_messages):
    offs = [m.physical_offset for m in sample_messages]
    html = unescape(client.get(f"/messages?from={offs[60]}&limit=10").get_data(as_text=True))
    assert f'<a class="prev" href="/messages?limit=10&from={offs[50]}">' in html
    assert f'<a class="newest" href="/messages?limit=10&from={offs[-10]}">' in html
    last = unescape(client.get(f"/messages?from={offs[-10]}&limit=10").get_data(as_text=True))
    assert 'class="newest"' not in last and 'class="next"' not in last  # already the newest page
    first = unescape(client.get("/messages?limit=10").get_data(as_text=True))
    assert 'class="prev"' not in first
    d = client.get(f"/api/messages?from={offs[60]}&limit=10").get_json()
    assert d["prev_from"] == str(offs[50]) and d["newest_from"] == str(offs[-10])  # 64-bit offsets as strings
