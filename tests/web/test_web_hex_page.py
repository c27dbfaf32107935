"""The hex page's jump, addresses, kept length and data inspector (issue 33), through the Flask test client; the
same in a browser (cursor, keys, sticky panel): tests/web/test_browser_hex.py."""

from __future__ import annotations

import re

import pytest

from inspector.engine import byte_readings as data_values
from inspector.engine.present.hexwindow import plausible_time as time_text

SEGMENT = "sample_store/commitlog/00000000000000000000"


def raw(offset: int, n: int) -> bytes:
    with open(SEGMENT, "rb") as f:  # the sample's first segment starts at offset 0
        f.seek(offset)
        return f.read(n)


@pytest.mark.parametrize("typed", ["0x{:x}", "0X{:X}", "{:,}", "{:_}", " {} "])
def test_jump_to_as_typed_lands_on_the_decimal_page(client, sample_messages, typed):
    o = sample_messages[3].physical_offset
    r = client.get("/hex", query_string={"offset": typed.format(o), "length": "64", "addr": "hex"})
    if typed == " {} ":  # plain decimal with spaces: the page itself, no redirect
        assert r.status_code == 200 and f'data-offset="{o}"' in r.get_data(as_text=True)
        return
    assert r.status_code == 302
    assert r.headers["Location"].endswith(f"/hex?offset={o}&length=64&addr=hex")


def test_jump_to_a_msgid_offset_reading_and_uniq_key(client, sample_messages):
    m = sample_messages[2]
    r = client.get(f"/hex?offset={m.msg_id}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/hex?offset={m.physical_offset}")
    uniq = next(x for x in sample_messages if x.unique_key)
    r = client.get(f"/hex?offset={uniq.unique_key}")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/hex?offset={uniq.physical_offset}")


def test_jump_refusals(client):
    r = client.get("/hex?offset=-1")
    assert r.status_code == 400 and "offset must be a physical offset" in r.get_data(as_text=True)
    r = client.get("/hex?offset=hello")
    assert r.status_code == 400 and "or a msgId, not &#39;hello&#39;" in r.get_data(as_text=True)
    r = client.get("/hex?offset=" + "F" * 32)  # a msgId this store does not hold
    assert r.status_code == 404 and "under neither reading" in r.get_data(as_text=True)
    assert client.get("/hex?offset=0&addr=octal").status_code == 400
    assert client.get("/api/hex?offset=0x10").status_code == 400  # the API stays decimal


def test_length_and_addresses_kept_across_prev_next_and_the_region_links(client, sample_messages):
    o = sample_messages[1].physical_offset
    html = client.get(f"/hex?offset={o}&length=64&addr=hex").get_data(as_text=True)
    links = re.findall(r'<a class="(?:prev|next)" rel="(?:prev|next)" href="([^"]+)"', html)
    assert len(links) == 2 and all("length=64" in u and "addr=hex" in u for u in links)
    assert all("length=64" in u for u in re.findall(r'<td class="num"><a href="(/hex[^"]+)"', html))
    addresses = re.findall(r'<span class="addr">([^<]+)</span>', html)
    assert addresses and all(a.startswith("0x") and int(a, 16) % 16 == 0 for a in addresses)
    assert '<input type="hidden" name="addr" value="hex">' in html  # "jump to" keeps them too
    html = client.get(f"/hex?offset={o}").get_data(as_text=True)
    assert "length=" not in " ".join(re.findall(r'rel="(?:prev|next)" href="([^"]+)"', html))  # not asked: not kept
    assert re.findall(r'<span class="addr">([^<]+)</span>', html)[0].isdigit()


def test_data_inspector_reads_big_endian_and_dates_a_plausible_int64(client, sample_messages):
    m = sample_messages[0]
    record = raw(m.physical_offset, 64)
    born = m.born_timestamp.to_bytes(8, "big")
    at = record.index(born)  # the BORNTIMESTAMP field, found by its value
    values = {v["type"]: v for v in data_values(record, at)}
    assert values["int64"]["value"] == m.born_timestamp
    assert values["int32"]["value"] == int.from_bytes(born[:4], "big", signed=True)
    assert values["time (int64 ms)"]["value"] == time_text(m.born_timestamp)
    assert time_text(m.born_timestamp).endswith("+00:00")
    first = {v["type"]: v for v in data_values(record, 0)}
    assert first["int32"]["value"] == m.total_size  # TOTALSIZE, the record's first four bytes
    assert {v["type"]: v["value"] for v in data_values(b"\xff\xfe", 0)} == {
        "int8": -1, "int16": -2, "int32": None, "int64": None, "time (int64 ms)": None}
    assert data_values(b"\xff", 0)[0]["unsigned"] == 255
    html = client.get(f"/hex?offset={m.physical_offset + at}").get_data(as_text=True)
    inspector = html[html.index('id="hex-inspector"'):html.index("</aside>")]
    assert f"<td class=\"num\">{m.born_timestamp}</td>" in inspector
    assert time_text(m.born_timestamp) in inspector and "BORNTIMESTAMP" in inspector
