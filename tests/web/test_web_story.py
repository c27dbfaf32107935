"""The story page and ``/api/story`` (issue 30 item 1) through Flask's test client on the committed sample store:
the API is ``story --json``'s view (64-bit offsets as strings), every offset and id on the page links to its
record (message page, msgId page, its queue), the message and msgId pages link to it, bad input and unknown ids
are the app's 400/404, a log no index covers past the request's scan size is named as not searched, and the
store is read within the request's time budget. Expected values come from the engine (``story_of``)."""

from __future__ import annotations

import re

from inspector.engine import story_of, story_view
from web.data import Limits
from web.offsets import stringify_offsets
from web.story import story_data

DEAD_LETTER, UNIQ_KEY = 90151, "0A1401151E276D06D69C5F7499F40168"


def test_the_api_is_the_cli_json_with_offsets_as_strings(client, sample_store):
    got = client.get(f"/api/story?ref={DEAD_LETTER}")
    assert got.status_code == 200
    body = got.get_json()
    want = stringify_offsets(story_view(story_of(sample_store, str(DEAD_LETTER), scan=True)))
    for group in want["groups"]:
        group["committed"] = str(group["committed"])
    assert {k: body[k] for k in want} == want
    assert [r["role"] for r in body["records"]] == ["original", "retry-scheduled", "retry", "retry-scheduled", "retry",
                                                     "retry-scheduled", "retry", "dead-letter"]
    assert body["records"][-1]["physical_offset"] == str(DEAD_LETTER)
    assert (body["records_total"], body["records_truncated"], body["unindexed_scanned"]) == (8, False, True)


def test_every_offset_and_id_on_the_page_links_to_its_record(client, sample_store):
    html = client.get(f"/story?ref={UNIQ_KEY}").get_data(as_text=True)
    story = story_of(sample_store, UNIQ_KEY, scan=True)
    for r in story.records:
        assert f'<a class="record" href="/message/{r.physical_offset}">{r.physical_offset}</a>' in html
        assert f'<a class="id" href="/resolve?id={r.msg_id}">{r.msg_id}</a>' in html
    origin = dict(story.records[-1].facts)["ORIGIN_MESSAGE_ID"]
    assert f'<a class="id" href="/resolve?id={origin}">{origin}</a>' in html
    assert f'<a class="id" href="/resolve?id={UNIQ_KEY}">{UNIQ_KEY}</a>' in html
    # the group's committed offset opens its queue from there (PaymentEvents queue 2 committed at 27)
    assert re.search(r'href="/messages\?topic=PaymentEvents&amp;queue=2&amp;from=27">27</a>', html)
    assert f"every topic&#39;s index for UNIQ_KEY {UNIQ_KEY}" in html


def test_the_message_and_msgid_pages_link_to_the_story(client):
    message = client.get(f"/message/{DEAD_LETTER}").get_data(as_text=True)
    assert f'id="story-link" href="/story?ref={DEAD_LETTER}"' in message
    resolve = client.get(f"/resolve?id={UNIQ_KEY}").get_data(as_text=True)
    assert f'id="story-link" href="/story?ref={UNIQ_KEY}"' in resolve
    assert client.get(f"/story?ref={DEAD_LETTER}").status_code == 200
    assert 'href="/story"' in client.get("/").get_data(as_text=True)  # the header's link


def test_a_topic_and_key_and_the_empty_form(client):
    html = client.get("/story?ref=PaymentEvents&key=pay-880571").get_data(as_text=True)
    assert "PaymentEvents pay-880571: 8 record(s)" in html
    empty = client.get("/story")
    assert empty.status_code == 200 and 'id="story-records"' not in empty.get_data(as_text=True)


def test_bad_input_and_unknown_ids(client):
    unknown = client.get("/api/story?ref=7F00000100002A9F00000000FFFFFFFF")
    assert unknown.status_code == 404
    assert unknown.get_json()["message"] == "no message with id 7F00000100002A9F00000000FFFFFFFF in this store"
    assert client.get("/api/story").status_code == 400
    assert client.get("/story?ref=not-an-id").status_code == 400
    assert client.get("/story?ref=%1b%5b2J").status_code == 400  # control characters in an argument


def test_log_no_index_covers_past_the_scan_size_is_named_not_searched(sample_store):
    d = story_data(sample_store, str(DEAD_LETTER), None, Limits(), scan_bytes=-1)
    assert d["unindexed_scanned"] is False
    assert any("copies there were not searched; `rmq-inspect story STORE 90151` scans them" in n for n in d["notes"])
    capped = story_data(sample_store, str(DEAD_LETTER), None, Limits(max_rows=3))
    assert (len(capped["records"]), capped["records_total"], capped["records_truncated"]) == (3, 8, True)


def test_trace_records_and_groups_on_the_scenario_store(tmp_path):
    """tests/story_store.py's R on the page: each trace record's ids link to the msgId page, G's failed consume
    (SubAfter: 12 ms, success false) and H behind the message (offset 0: not consumed)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from story_store import R, write_story_store

    from inspector.engine import Store
    from web.app import create_app

    at = write_story_store(tmp_path / "store")
    with Store(tmp_path / "store") as store:
        client = create_app(store, {"TESTING": True}).test_client()
        html = client.get(f"/story?ref={R}").get_data(as_text=True)
        body = client.get(f"/api/story?ref={R}").get_json()
    assert [r["role"] for r in body["records"]].count("trace") == 3
    assert f'<b>offset_msg_id</b> <a class="id" href="/resolve?id={at["msg_id"]}">{at["msg_id"]}</a>' in html
    assert f'<a class="record" href="/message/{at["pub"]}">{at["pub"]}</a>' in html
    groups = {(g["group"], g["topic"], g["queue_offset"]): g for g in body["groups"]}
    assert groups[("G", "TopicTest", "0")]["cost_ms"] == 12 and groups[("G", "TopicTest", "0")]["success"] is False
    assert groups[("H", "TopicTest", "0")]["consumed"] is False and groups[("H", "TopicTest", "0")]["committed"] == "0"
    assert '<span class="bad">NO</span>' in html and '<span class="bad">no</span>' in html


def test_the_request_deadline_bounds_the_story_and_the_scan_size_is_the_engine_s(sample_store, client):
    """The story is told within the request's deadline (``story_of``'s budget): one already spent answers with
    the REF's record and says what was not read; the byte cap is the engine's one constant."""
    import inspect

    from inspector.engine import UNINDEXED_SCAN_BYTES
    from web.deadline import Deadline

    spent = story_data(sample_store, str(DEAD_LETTER), None, Limits(), deadline=Deadline(0))
    assert [r["physical_offset"] for r in spent["records"]] == [DEAD_LETTER]
    assert any(n.startswith("stopped at the 0 s time limit after reading the REF's record") for n in spent["notes"])
    assert inspect.signature(story_data).parameters["scan_bytes"].default == UNINDEXED_SCAN_BYTES
    whole = client.get(f"/api/story?ref={DEAD_LETTER}").get_json()  # the default budget: the whole story
    assert len(whole["records"]) == 8 and not any("time limit" in n for n in whole["notes"])
