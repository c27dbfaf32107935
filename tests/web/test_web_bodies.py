"""The web's bodies through the engine's one preview (issue 28 item 3): the list previews a compressed body
decompressed, like the CLI and the TUI; the page's JSON view survives what json.loads makes of hostile bytes."""

from __future__ import annotations

import json
import re
from html import unescape

ZLIB_OFFSET = 60781


def text_of(response) -> str:
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def test_the_list_previews_a_compressed_body_decompressed(client):
    rows = client.get(f"/api/messages?from={ZLIB_OFFSET}&limit=1").get_json()["messages"]
    assert rows[0]["body_preview"].startswith('{"type":"SNAPSHOT","warehouse":"WH-BER-1"')
    html = unescape(text_of(client.get(f"/messages?from={ZLIB_OFFSET}&limit=1")))
    assert '<td class="body-preview">{"type":"SNAPSHOT"' in html


def test_a_json_body_holding_a_lone_surrogate_escape_is_shown(tmp_path):
    from inspector.cli.main import main
    from web.app import create_app

    spec = tmp_path / "m.jsonl"
    body = '{"note": "\\ud800 half a pair", "pad": "' + "x" * 200 + '"}'  # valid JSON, no valid text once parsed
    spec.write_text(json.dumps({"topic": "T", "body": body}) + "\n" +
                    json.dumps({"topic": "T", "body": "plain", "compression": "zlib"}) + "\n")
    assert main(["write", str(tmp_path / "store"), str(spec)]) == 0
    client = create_app(tmp_path / "store").test_client()
    r = client.get("/message/0?body=json")
    assert r.status_code == 200
    shown = unescape(re.search(r'<pre class="body" id="body">(.*?)</pre>', text_of(r), re.S).group(1))
    assert '"note": "\ufffd half a pair"' in shown
    rows = client.get("/api/messages").get_json()["messages"]
    assert [row["body_preview"] for row in rows][1] == "plain"  # a ZLIB body, previewed decompressed
