"""keyHash as the broker makes it (issue 33): ``IndexFile.indexKeyHashMethod`` (rocketmq-all-4.9.8,
IndexFile.java lines 148-154) is ``Math.abs(key.hashCode())``, then 0 when that is still negative: for
Integer.MIN_VALUE only. The teaching page and the chain page spell out hashCode -> abs -> keyHash."""

from __future__ import annotations

import re
from urllib.parse import quote

from parsers.java import INT32_MIN, java_string_hash

LOW, SPAN = 0x4E00, 0x5200  # CJK ideographs: digits of a base-31 number, none of them a surrogate


def _text(r) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", r.get_data(as_text=True)))


def key_with_hash(prefix: str, want: int) -> str:
    """A key whose ``prefix + key`` has String.hashCode() ``want``: five characters solved as base-31 digits."""
    base = java_string_hash(prefix) * 31 ** 5
    for wrap in range(64):
        rest = (want - base) % (1 << 32) + wrap * (1 << 32) - LOW * sum(31 ** i for i in range(5))
        digits = []
        for power in range(4, -1, -1):
            d = min(max(rest // 31 ** power, 0), SPAN - 1)
            digits.append(d)
            rest -= d * 31 ** power
        if rest == 0:
            return "".join(chr(LOW + d) for d in digits)
    raise AssertionError("no key found")


def test_min_value_hash_code_gives_key_hash_0_and_slot_0(client):
    r = client.get("/teach?hashes=-2147483648&slots=7&step=1")
    text = _text(r)
    assert r.status_code == 200
    assert "2147483648 % 7" not in text and "slot 2" not in text
    assert "hashCode -2147483648 → Math.abs(-2147483648) = -2147483648" in text
    assert "so keyHash 0; 0 % 7 = slot 0" in text


def test_a_negative_hash_code_shows_its_abs_step(client):
    text = _text(client.get("/teach?hashes=-5&slots=7&step=1"))
    assert "hashCode -5 → abs → keyHash 5; 5 % 7 = slot 5" in text


def test_the_chain_page_spells_out_min_value(client):
    key = key_with_hash("TopicTest#", INT32_MIN)
    assert java_string_hash(f"TopicTest#{key}") == INT32_MIN
    text = _text(client.get(f"/chain?topic=TopicTest&key={quote(key)}"))
    assert "hashCode -2147483648 → Math.abs(-2147483648) = -2147483648" in text
    assert "keyHash 0" in text
