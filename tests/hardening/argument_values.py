"""Argument values for the issue-22 argument fuzzer, and what each argument may hold.

Every integer argument of the CLI (offsets, limits, lengths, sizes, times, counts) is listed in :data:`ARGUMENTS`
with the range a value must be in to mean anything; :func:`impossible` says whether a text is outside it (or no
plain ASCII integer at all), in which case the documented answer is exit 2 (bad input) on the CLI and 400 on
the web API. Values are drawn as text: the edges (0, -1, 2^63 - 1, 2^63, 4,300+ digits), any integer, hex and
octal forms, non-ASCII digits (Arabic-Indic, fullwidth, Devanagari), signs, spaces and random text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from hypothesis import strategies as st

I64_MAX = (1 << 63) - 1
I32_MAX = (1 << 31) - 1
PLAIN = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)")
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)  # a number of seconds


@dataclass(frozen=True)
class Argument:
    """``where`` builds the argv around the value (``{S}`` the store, ``{V}`` the value)."""

    name: str
    where: tuple[str, ...]
    low: int
    high: int
    multiple_of: int = 1
    web: tuple[str, str] | None = None  # (path, query) of the same value on the web API, {V} the value
    # the web's own narrower bounds (a page of at most 500 messages, a hex page of 16 to 8192 bytes: web/data.py
    # Limits): a value inside the CLI's range but outside these is a 400 there, its message naming the cap
    web_cap: tuple[int, int] | None = None
    # a duration in seconds (issue 35): a decimal number in (low, high], finite; low and high are then unused
    seconds: tuple[float, float] | None = None
    # what else the value may be: "ref" (show's REF: a msgId or UNIQ_KEY too, so text no integer is "not found"
    # at worst), "text" (a topic, a key: any text is a value, the answer only has to be documented and escaped)
    takes: str = "integer"


ARGUMENTS: dict[str, Argument] = {a.name: a for a in (
    Argument("messages --from", ("messages", "{S}", "--topic", "OrderEvents", "--queue", "0", "--from", "{V}"),
             0, I64_MAX, web=("/api/messages", "topic=OrderEvents&queue=0&from={V}")),
    Argument("messages --limit", ("messages", "{S}", "--topic", "OrderEvents", "--queue", "0", "--limit", "{V}"),
             0, I64_MAX, web=("/api/messages", "topic=OrderEvents&queue=0&limit={V}"), web_cap=(1, 500)),
    Argument("messages --queue", ("messages", "{S}", "--topic", "OrderEvents", "--queue", "{V}"), 0, I32_MAX,
             web=("/api/messages", "topic=OrderEvents&queue={V}")),
    Argument("messages log --from", ("messages", "{S}", "--from", "{V}", "--limit", "3"), 0, I64_MAX),
    Argument("show OFFSET", ("show", "{S}", "{V}"), 0, I64_MAX, web=("/api/message/{V}", ""), takes="ref"),
    Argument("show --body-limit", ("show", "{S}", "60781", "--body-limit", "{V}"), 1, I64_MAX),
    Argument("hex OFFSET", ("hex", "{S}", "{V}", "--length", "16"), 0, I64_MAX,
             web=("/api/hex", "offset={V}&length=16")),
    Argument("hex --length", ("hex", "{S}", "0", "--length", "{V}"), 1, I64_MAX,
             web=("/api/hex", "offset=0&length={V}"), web_cap=(16, 8192)),
    # store times since issue 31 item 2 (STORE_TIME, as every --since/--until: epoch ms digits, ISO 8601, -2h)
    Argument("key --begin", ("key", "{S}", "--begin", "{V}", "OrderEvents", "order-1108"), 0, I64_MAX, takes="time"),
    Argument("key --end", ("key", "{S}", "OrderEvents", "order-1108", "--end", "{V}"), 0, I64_MAX, takes="time"),
    Argument("verify --segment-size", ("verify", "{S}", "--segment-size", "{V}"), 1, I64_MAX),
    Argument("info --cq-file-size", ("info", "{S}", "--cq-file-size", "{V}"), 20, I64_MAX, multiple_of=20),
    Argument("verify --index-slots", ("verify", "{S}", "--index-slots", "{V}"), 1, I32_MAX),
    Argument("verify --index-items", ("verify", "{S}", "--index-items", "{V}"), 1, I32_MAX),
    Argument("tour --step", ("tour", "{S}", "--step", "{V}", "--json"), 1, I64_MAX),
    Argument("exercises --count", ("exercises", "{S}", "--count", "{V}", "--json"), 1, 1000),
    Argument("timer --slot", ("timer", "{S}", "--slot", "{V}"), 0, 2 * 7 * 86_400 - 1,
             web=("/api/timer", "slot={V}")),
    Argument("timer --from", ("timer", "{S}", "--from", "{V}", "--json"), 0, I64_MAX),
    Argument("timer --limit", ("timer", "{S}", "--limit", "{V}", "--json"), 1, I64_MAX),
    # --from 0 --limit 1: the first message ends the run, whatever the timeout (nan, inf or 1e308 never did)
    Argument("key --budget", ("key", "{S}", "OrderEvents", "order-1108", "--budget", "{V}"), 0, 0,
             seconds=(0.0, 86_400.0)),
    Argument("messages --idle-timeout", ("messages", "{S}", "--follow", "--from", "0", "--limit", "1",
                                         "--idle-timeout", "{V}"), 0, 0, seconds=(0.0, 86_400.0)),
    Argument("show --budget", ("show", "{S}", "60781", "--budget", "{V}"), 0, 0, seconds=(0.0, 86_400.0)),
    # the newer commands (issue 35, fuzznew): story and trace take show's REF; story's KEY and --trace-topic any
    # text ("--" and "--opt=V" so a value starting with "-" is still that argument's, not an option)
    Argument("story REF", ("story", "{S}", "{V}"), 0, I64_MAX, takes="ref"),
    Argument("story REF --no-scan", ("story", "{S}", "{V}", "--no-scan", "--json"), 0, I64_MAX, takes="ref"),
    Argument("story KEY", ("story", "{S}", "OrderEvents", "--", "{V}"), 0, 0, takes="text"),
    Argument("story --trace-topic", ("story", "{S}", "60781", "--trace-topic={V}"), 0, 0, takes="text"),
    Argument("trace REF", ("trace", "{S}", "{V}"), 0, I64_MAX, takes="ref"),
    Argument("trace --trace-topic", ("trace", "{S}", "60781", "--trace-topic={V}", "--json"), 0, 0, takes="text"),
    # the web's story (issue 35.4): the same REF and KEY as a query value of /api/story
    Argument("story REF (web)", ("story", "{S}", "--json", "--", "{V}"), 0, I64_MAX, takes="ref",
             web=("/api/story", "ref={V}")),
    Argument("story KEY (web)", ("story", "{S}", "--json", "OrderEvents", "--", "{V}"), 0, 0, takes="text",
             web=("/api/story", "ref=OrderEvents&key={V}")),
    # groups/group and grep (merged from h-group and h-grep): names and patterns any text, their --limit a count
    Argument("group NAME", ("group", "{S}", "--", "{V}"), 0, 0, takes="text", web=("/api/groups", "name={V}")),
    Argument("group --limit", ("group", "{S}", "billing-consumer", "--limit", "{V}", "--json"), 1, I64_MAX,
             web=("/api/groups", "name=billing-consumer&limit={V}"), web_cap=(1, 500)),
    Argument("grep PATTERN", ("grep", "{S}", "--", "{V}"), 0, 0, takes="text", web=("/api/search", "q={V}")),
    Argument("grep -F PATTERN", ("grep", "{S}", "-F", "--json", "--", "{V}"), 0, 0, takes="text",
             web=("/api/search", "fixed=1&q={V}")),
    Argument("grep --in", ("grep", "{S}", "order", "--in={V}"), 0, 0, takes="text"),
    Argument("grep --topic", ("grep", "{S}", "order", "--topic={V}", "-i"), 0, 0, takes="text"),
    Argument("grep --tag", ("grep", "{S}", "order", "--tag={V}", "--json"), 0, 0, takes="text"),
    Argument("grep --limit", ("grep", "{S}", "order", "--limit", "{V}", "--json"), 1, I64_MAX,
             web=("/api/search", "q=order&limit={V}"), web_cap=(1, 500)),
    Argument("preflight --segment-size", ("preflight", "{S}", "--segment-size", "{V}"), 1, I64_MAX),
    Argument("preflight --cq-file-size", ("preflight", "{S}", "--cq-file-size", "{V}", "--json"), 20, I64_MAX,
             multiple_of=20),
    # offsets plan (issue 32 item 3): a plan only (no --out), so nothing is written whatever the value
    Argument("offsets plan --to-offset", ("offsets", "plan", "{S}", "--group", "fulfillment-consumer", "--topic",
                                          "OrderEvents", "--queue", "1", "--to-offset", "{V}", "--json"), 0, I64_MAX),
    Argument("offsets plan --queue", ("offsets", "plan", "{S}", "--group", "fulfillment-consumer", "--to-end",
                                      "--topic", "OrderEvents", "--queue", "{V}"), 0, I32_MAX),
    Argument("offsets plan --group", ("offsets", "plan", "{S}", "--to-end", "--group={V}"), 0, 0, takes="text"),
    Argument("offsets plan --topic", ("offsets", "plan", "{S}", "--to-end", "--group", "billing-consumer",
                                      "--topic={V}"), 0, 0, takes="text"),
)}

NON_ASCII_DIGITS = ("٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "०१२३४५६७८९")
EDGES = ("0", "1", "-1", "-5", "3", "7", "20", "65536", str(I32_MAX), str(I32_MAX + 1), str(I64_MAX),
         str(I64_MAX + 1), str(-(I64_MAX + 1)), str(-(I64_MAX + 2)), "99999999999999999999999", "1" * 4301,
         "1" * 5000, "0x10", "-0x1", "0o17", "0b101", "+1", " 7", "7 ", "1_000", "1e3", "1.5", "", "abc", "٣",
         "01", "-007", "00000000000000065536", "nan", "inf", "1e308", "0.5", "-0.0", ".5", "86400.5",
         "３", "१२", "-٣")


# text a store name, a key or a topic could be: terminal controls (CSI, OSC title, BEL), bidi overrides, NUL,
# a msgId's shape with a non-hex letter, a path, a very long line
HOSTILE_TEXTS = ("\x1b]0;PWNED\x07", "\x1b[2J\x1b[H", "a\x00b", "\u202eevil", "\r\nforged: line", "%LMQ%x",
                 "RMQ_SYS_TRACE_TOPIC", "rmq_sys_TRACE_DATA_x", "../../etc/passwd", "G" * 32, "0" * 56, "k" * 10_000,
                 "-x", "--json", "TopicTest#key", "\ufffd", "\x7f\x9b31m", " ",
                 "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "{{7*7}}")


def _non_ascii(n: int) -> str:
    digits = NON_ASCII_DIGITS[n % len(NON_ASCII_DIGITS)]
    return "".join(digits[int(c)] for c in str(n // len(NON_ASCII_DIGITS)))


VALUES: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(EDGES),
    st.integers(-(1 << 70), 1 << 70).map(str),
    st.integers(-(1 << 20), 1 << 20).map(str),
    st.integers(0, 1 << 64).map(hex),
    st.integers(0, 10**9).map(_non_ascii),
    st.integers(4200, 6000).map(lambda n: "9" * n),
    st.text(max_size=12),
    st.sampled_from(HOSTILE_TEXTS),
)


GROUPED = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F]+(?:_[0-9a-fA-F]+)+|[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+(?:_[0-9]+)+)")


def ungrouped(text: str) -> str:
    """``text`` without its digit grouping when it is grouped as the argument vocabulary reads it (issue 33)."""
    return text.replace(",", "").replace("_", "") if GROUPED.fullmatch(text) else text


def impossible(arg: Argument, text: str) -> bool:
    """True when ``text`` cannot be a value of ``arg``: out of its range, more than 64 bits, non-ASCII digits, or
    no integer at all (the answer must then be "bad input"). Spaces are left undecided (False); digits grouped as
    the vocabulary reads them (``14,924``, ``14_924``, ``0x3a_4c``) are the number."""
    if arg.takes == "text" or text != text.strip():
        return False
    text = ungrouped(text)
    if any(c.isdigit() and not c.isascii() for c in text):
        return True
    if arg.seconds is not None:
        if len(text) > 40 or not DECIMAL.fullmatch(text):
            return True
        value = float(text)
        return not (math.isfinite(value) and arg.seconds[0] < value <= arg.seconds[1])
    if arg.takes == "time":  # a store time: ASCII digits (epoch ms), -15m, or text starting with a date
        if text.isascii() and text.isdigit():
            return len(text.lstrip("0")) > 19 or int(text) > arg.high
        return not (re.fullmatch(r"-[0-9]+(ms|s|m|h|d|w)", text, re.ASCII)
                    or re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text, re.ASCII))
    if arg.takes == "ref" and len(text) in (32, 56) and re.fullmatch("[0-9a-fA-F]+", text):
        return False  # an offset msgId (IPv4 or IPv6 broker) or a UNIQ_KEY, whatever digits it holds
    if not PLAIN.fullmatch(text):
        return arg.takes != "ref"  # show's REF also reads msgIds and unique keys: "not found" (1) is fair there
    if len(text.lstrip("+-").lstrip("0")) > 40:  # leading zeros spell the same number (a 56-zero REF is 0)
        return True
    prefix = text.lstrip("+-")[:2].lower()
    # decimal with leading zeros ("01", a segment name's 20 digits) is decimal: int(text, 0) refuses it
    value = int(text, 16) if prefix == "0x" else int(text, 0) if prefix in ("0o", "0b") else int(text, 10)
    return not (arg.low <= value <= arg.high and value % arg.multiple_of == 0)


def argv_for(arg: Argument, store: str, value: str) -> list[str]:
    return [store if a == "{S}" else a.replace("{V}", value) for a in arg.where]
