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


@pytest.mark.parametrize("typed", ["0x3a4c", "0X3A4C", "0x3a_4c"])
def test_an_offset_in_hex_leads_a_page_to_its_decimal_url(client, typed):
    """Issue 33: every offset argument takes 14,924, 14_924 and 0x3a4c. A page given 0x (the CLI's and the hex
    page's spelling, read by the shared parse_integer) redirects to its decimal URL, as the hex page's "jump to"
    does; the page there is the one 14,924 and 14_924 give. The API stays decimal (400)."""
    r = client.get(f"/message/{typed}?body=hex")
    assert r.status_code == 302 and r.location == "/message/14924?body=hex"
    page = client.get(r.location)
    assert page.status_code == 200 and "Message at physical offset 14924" in page.get_data(as_text=True)
    for grouped in ("14,924", "14_924"):
        assert client.get(f"/message/{grouped}?body=hex").data == page.data
    r = client.get(f"/messages?topic=OrderEvents&from={typed}")
    assert r.status_code == 302 and r.location == "/messages?topic=OrderEvents&from=14924"
    assert client.get(r.location).status_code == 200
    r = client.get(f"/messages?topic=OrderEvents&queue=0&from={typed[:3]}")
    assert r.status_code == 302 and r.location == f"/messages?topic=OrderEvents&queue=0&from={int(typed[:3], 16)}"
    assert client.get(f"/api/message/{typed}").status_code == 400
