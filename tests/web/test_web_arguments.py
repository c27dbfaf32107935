"""The web API reads numbers through the same argument kinds as the CLI: the same value, the same range message
(issue 22: 2**63 and a 23-digit number used to get two different answers)."""

from __future__ import annotations

import pytest

INT64 = "[0, 9223372036854775807]"


@pytest.mark.parametrize(("url", "says"), [
    ("/api/messages?from=99999999999999999999999", f"from must be a physical offset, a decimal integer in {INT64}"),
    (f"/api/messages?from={1 << 63}", f"from must be a physical offset, a decimal integer in {INT64}"),
    ("/api/messages?from=-1", f"from must be a physical offset, a decimal integer in {INT64}, not '-1'"),
    ("/api/messages?topic=OrderEvents&queue=0&from=-1", "from must be a queue offset"),
    ("/api/messages?limit=-5", "limit must be a message count, a decimal integer in [1, "),
    ("/api/messages?limit=٣", "limit must be a message count"),
    (f"/api/messages?from={'1' * 4400}", "(4400 characters)"),
    ("/api/message/-1", f"offset must be a physical offset, a decimal integer in {INT64}"),
    ("/api/message/99999999999999999999999", f"offset must be a physical offset, a decimal integer in {INT64}"),
    ("/api/hex?offset=-1", "offset must be a physical offset"),
    ("/api/hex?offset=0&length=0", "length must be a length in bytes, a decimal integer in [16, "),
    ("/api/messages?topic=OrderEvents&queue=-1", "queue must be a queue id"),
])
def test_the_same_values_get_the_cli_s_range_message(client, url, says):
    r = client.get(url)
    assert r.status_code == 400, (url, r.status_code)
    assert says in r.get_json()["message"], r.get_json()


@pytest.mark.parametrize("offset", ["2,458", "2_458"])
def test_an_offset_as_the_pages_show_it_names_the_same_record(client, offset):
    """Grouped digits (the pages show 2,458) read in a URL as the CLI reads them; hex stays the CLI's (400)."""
    r = client.get(f"/api/message/{offset}")
    assert r.status_code == 200 and int(r.get_json()["physical_offset"]) == 2458  # (a string: JS numbers)
    assert client.get("/api/message/0x99a").status_code == 400
