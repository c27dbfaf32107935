"""The web viewer takes --broker-config: `rmq-inspect web STORE --broker-config F` on a store whose commitlog is
split over two folders serves the same overview and messages as the original, and lists where each setting
came from."""

from __future__ import annotations

from pathlib import Path

from split_commitlog import split_commitlog

import web.app as web_app
from inspector.cli.main import main
from web.app import create_app

SAMPLE = Path(__file__).resolve().parents[2] / "sample_store"


def _api(store, *urls: str) -> list[dict]:
    client = create_app(store, {"TESTING": True}).test_client()
    answers = []
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, r.data[:300]
        answers.append(r.get_json())
    return answers


def test_the_web_viewer_serves_a_split_commitlog_given_by_broker_config(tmp_path, monkeypatch, sample_store):
    root, conf, _ = split_commitlog(SAMPLE, tmp_path, maxIndexNum="512")
    urls = ("/api/", "/api/messages?limit=500", "/api/messages?topic=OrderEvents&queue=1&limit=50")
    served = {}

    def serve(store, **_kw) -> int:  # what `rmq-inspect web` serves, asked through Flask's test client
        served["answers"] = _api(store, *urls)
        client = create_app(store, {"TESTING": True}).test_client()
        served["page"] = client.get("/").get_data(as_text=True)
        return 0

    monkeypatch.setattr(web_app, "serve", serve)
    assert main(["web", str(root), "--broker-config", str(conf)]) == 0
    overview, log, queue = served["answers"]
    want_overview, want_log, want_queue = _api(sample_store, *urls)
    assert [s["start_offset"] for s in overview["segments"]] == [s["start_offset"] for s in want_overview["segments"]]
    assert overview["max_physical_offset"] == want_overview["max_physical_offset"]
    assert [m["msg_id"] for m in log["messages"]] == [m["msg_id"] for m in want_log["messages"]]
    assert [m["msg_id"] for m in queue["messages"]] == [m["msg_id"] for m in want_queue["messages"]]
    rows = {r["name"]: r["source"] for r in overview["settings"]}
    assert (rows["storePathCommitLog"], rows["maxIndexNum"], rows["messageDelayLevel"]) == \
        ("broker.conf", "broker.conf", "inferred")
    assert "Broker settings" in served["page"] and "storePathCommitLog" in served["page"]


def test_the_web_census_counts_the_commitlog_where_broker_config_puts_it(tmp_path):
    from inspector.engine import Store, load_broker_config
    from web.data import Limits, census_of

    root, conf, dirs = split_commitlog(SAMPLE, tmp_path)
    with Store(root, broker_config=load_broker_config(conf)) as store:
        found = census_of(store, Limits(), wait=30)
    assert found is not None and found["kinds"][0]["kind"] == "commitlog" and found["kinds"][0]["files"] == 3
    assert found["moved"] == [f"commitlog in {dirs[0]}, {dirs[1]} (storePathCommitLog, {conf} line 1)"]
