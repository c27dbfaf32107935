"""The grep pattern's prefilter: the literal every match holds, when the regex itself may run over the segment
bytes, and the clear usage errors."""

from __future__ import annotations

import pytest

from inspector.engine import BadInput, compile_pattern, parse_fields


@pytest.mark.parametrize("text,literal,prefilter", [
    (r"order-\d+", b"order-", False),
    (r"(abc)def", b"abcdef", False),  # a plain group continues the run
    (r"x\d{2}yz|nothing", b"", True),  # an alternation at the top: no literal every match holds
    (r"a.b", b"", True),
    (r"^abcd", b"abcd", False),  # the anchor is checked per field; the literal is still in every match
    (r"^a.b", b"", False),  # an anchor and no literal: every record is decoded
    (r"(?<=x)ab", b"", False),
    (r"(?i:abc)xyz", b"", True),  # a group with its own flags: its letters may be in another case
    (r"ab+cd", b"", True),  # runs of 2 are too short to be worth a byte search
])
def test_literal_and_prefilter(text, literal, prefilter):
    p = compile_pattern(text)
    assert p.literal == literal
    assert (p.prefilter is not None) == prefilter


def test_case_folding_lowers_the_literal_and_fixed_strings_are_literal():
    assert compile_pattern("OrDeR", ignore_case=True).literal == b"order"
    assert compile_pattern("(?i)OrDeR").fold and compile_pattern("(?i)OrDeR").literal == b"order"
    p = compile_pattern("a.b[", fixed=True)
    assert p.literal == b"a.b[" and p.regex.search(b"xa.b[") and not p.regex.search(b"axb[")
    assert compile_pattern("café").literal == "café".encode()  # UTF-8 bytes: a multi-byte letter is literal too


@pytest.mark.parametrize("text", ["[", "(unclosed", "a{2,1}", "*x"])
def test_an_invalid_regex_is_bad_input_naming_it(text):
    with pytest.raises(BadInput, match="invalid regular expression"):
        compile_pattern(text)


def test_an_empty_pattern_and_unknown_fields_are_bad_input():
    with pytest.raises(BadInput, match="empty"):
        compile_pattern("")
    assert parse_fields("tags, body") == ("body", "tags")
    for bad in ("", "body,header", "nope"):
        with pytest.raises(BadInput, match="--in"):
            parse_fields(bad)


@pytest.mark.parametrize("text,alternatives", [
    ("refund|chargeback", (b"refund", b"chargeback")),
    (r"(refund|chargeback)-\d+", (b"refund", b"chargeback")),  # the alternation every match goes through
    ("ab|cdef", ()),  # an alternative too short for a byte search
    ("(?:x+|abc)", ()),  # an alternative without a literal
    ("|".join(c * 3 for c in "abcdefghi"), ()),  # too many: the regex itself does better
])
def test_alternatives(text, alternatives):
    p = compile_pattern(text)
    assert p.literal == b"" and p.alternatives == alternatives
    assert compile_pattern(text, ignore_case=True).alternatives == tuple(a.lower() for a in alternatives)
