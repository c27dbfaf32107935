"""Read and write the fastjson 1.x output of RocketMQ's ``store/config/*.json`` files (spec §7).

Text in, values out (and back): no file I/O. Why not ``json``: fastjson writes non-string map keys
unquoted (``Map<Integer, Long>`` becomes ``{0:12,1:40}``), which ``json.loads`` rejects. Rewriting the
text with a regex is not safe either, because string values (filter expressions, names) can contain
``0:1`` or ``{``. So this is a small hand-written lexer/parser that accepts standard JSON plus a bare
integer wherever an object key is expected.

The writer reproduces ``JSON.toJSONString(obj, prettyFormat=true)`` as RocketMQ's
``ConfigManager.persist`` uses it, byte for byte for every real broker file we have (see the tests):

* every string key goes on its own line, indented with tabs, no space after ``:``;
* non-string (int) keys stay on the current line: ``{0:12,1:40`` (fastjson's MapSerializer only calls
  ``println`` before *string* keys);
* a non-empty map closes with a newline and its own indentation (``println`` before ``}``), so an int-key
  map looks like ``{0:12,1:40\\n\\t\\t}``; an empty map is ``{}``;
* arrays are written inline (``["a","b"]``) without touching the indentation, as fastjson's
  ``CollectionCodec`` does for the ``Set``s and arrays found in these files (``groupTopicMap``,
  ``subscriptionDataSet``, ``bitPos``). Note: fastjson pretty-prints a ``java.util.List`` with more than one
  element one item per line; no file in spec §7 is known to contain one, so that case is not reproduced;
* strings are escaped like ``SerializeWriter.writeStringWithDoubleQuote``: ``"`` ``\\`` ``\\b\\t\\n\\f\\r``
  short, other control characters (C0, DEL, C1) and U+2028 as ``\\uXXXX`` with upper-case hex; all other
  non-ASCII text is written as is;
* no trailing newline (``MixAll.string2File`` writes the string unchanged).
"""

from __future__ import annotations

import json
import math
import re
from typing import NoReturn

__all__ = ["FastjsonError", "dumps", "loads", "split_topic_group"]

# Nesting limit: real files are 5 levels deep. Two Python frames per level, so 200 stays well clear of
# the default recursion limit (1000) even when called from a deep stack.
MAX_DEPTH = 200
# Number length limit, for values and bare integer keys alike: a Java long is at most 20 characters, a double
# at most 24 ("-1.7976931348623157E308"); Python's int() refuses more than 4300 digits with its own error.
MAX_NUMBER_LENGTH = 64

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_INT_KEY = re.compile(r"-?(?:0|[1-9][0-9]*)")
_STR_CHUNK = re.compile(r'[^"\\\x00-\x1f]*')  # run of characters that need no attention
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_KEYWORDS: dict[str, object] = {"true": True, "false": False, "null": None}


class FastjsonError(ValueError):
    """Malformed input. ``position`` is a character index into the (decoded) text; ``line`` and ``column``
    are 1-based. The message says what was expected and what was found."""

    def __init__(self, msg: str, position: int, line: int, column: int) -> None:
        super().__init__(msg, position, line, column)  # args match __init__ so the error pickles
        self.msg = msg
        self.position = position
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return f"{self.msg} at line {self.line} column {self.column} (char {self.position})"

    @classmethod
    def at(cls, msg: str, text: str, position: int) -> FastjsonError:
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        return cls(msg, position, line, column)


def loads(text: str | bytes) -> object:
    """Parse fastjson output (or standard JSON).

    Objects become dicts in file order, keyed by ``str`` for quoted keys and ``int`` for bare integer
    keys; arrays become lists; numbers become ``int`` (exact at any size) or ``float`` when written with a
    fraction or exponent. Anything malformed raises :class:`FastjsonError`: trailing data, truncation,
    trailing commas (fastjson never writes them, so one is a sign of a damaged file), bytes that are not
    UTF-8.
    """
    if isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            prefix = data[: e.start].decode("utf-8")  # valid up to the bad byte
            raise FastjsonError.at(
                f"invalid UTF-8 byte 0x{data[e.start]:02x} (byte {e.start})", prefix, len(prefix)
            ) from None
    start = 1 if text.startswith("\ufeff") else 0  # tolerate a byte-order mark; Java never writes one
    value = _fast(text[start:] if start else text)
    if value is not _SLOW:
        return value
    return _Parser(text).document(start)


# The fast path: the C scanner of ``json`` on the text with each bare integer key quoted and marked by a leading
# U+0000, the marked keys made ints again afterwards. The substitution does not know strings, and need not: a
# match inside a string inserts a closing quote followed by a backslash outside any string, which no JSON parser
# accepts, so that text goes to the parser above (the marker is a fixed escape, never the text's own: a text that
# holds one takes the parser too). So does whatever this path cannot promise (a number past MAX_NUMBER_LENGTH,
# NaN, nesting past MAX_DEPTH): the parser then gives the same value or the error with its position
# (tests/parsers/test_fastjson.py). A 400 KB topics.json: ~0.03 s instead of ~0.16 s.
_SLOW = object()
_BARE_KEY = re.compile(r"([{,][ \t\n\r]*)(-?(?:0|[1-9][0-9]*))(?=[ \t\n\r]*:)")
_MARKED = r'\1"\\u0000\2"'
_MARK = "\x00"


def _bounded_number(kind: type[int] | type[float]):
    def parse(literal: str) -> int | float:
        if len(literal) > MAX_NUMBER_LENGTH:
            raise ValueError("number too long")
        return kind(literal)
    return parse


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not fastjson")


_DECODER = json.JSONDecoder(parse_int=_bounded_number(int), parse_float=_bounded_number(float),
                            parse_constant=_no_constant)


def _fast(text: str) -> object:
    if "\\u0000" in text:
        return _SLOW
    # a bare key follows a "{": without one nothing to mark, and the regex's scan (~0.7 s over a 50 MB string, a
    # config file's top level in the corruption suite) is skipped; the find runs at memchr speed
    marked, keys = _BARE_KEY.subn(_MARKED, text) if "{" in text else (text, 0)
    try:
        value = _DECODER.decode(marked)
    except (ValueError, RecursionError):
        return _SLOW
    if keys or text.count("{") + text.count("[") > MAX_DEPTH:
        return _unmarked(value)
    return value  # no key to mend, and too few brackets to nest past MAX_DEPTH


def _unmarked(value: object) -> object:
    """``value`` with marked keys made ints again, or _SLOW past MAX_DEPTH (json's own limit is deeper)."""
    if not isinstance(value, dict | list):
        return value
    stack: list[tuple[dict | list, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return _SLOW
        if isinstance(node, dict):
            children = node.values()
            if any(k[:1] == _MARK for k in node):  # keys are str here: json makes no other
                if any(k[:1] == _MARK and len(k) > MAX_NUMBER_LENGTH + 1 for k in node):
                    return _SLOW  # a bare key past the bound: the parser names it
                items = [(int(k[1:]) if k[:1] == _MARK else k, v) for k, v in node.items()]
                node.clear()
                node.update(items)
        else:
            children = node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return value


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text

    def fail(self, expected: str, pos: int) -> NoReturn:
        found = repr(self.text[pos]) if pos < len(self.text) else "end of input"
        raise FastjsonError.at(f"expected {expected}, found {found}", self.text, pos)

    def ws(self, pos: int) -> int:
        return _WS.match(self.text, pos).end()  # type: ignore[union-attr]  # `*` always matches

    def document(self, pos: int) -> object:
        value, pos = self.value(self.ws(pos), 0)
        pos = self.ws(pos)
        if pos != len(self.text):
            self.fail("end of input after the value", pos)
        return value

    def value(self, pos: int, depth: int) -> tuple[object, int]:
        """Parse the value starting exactly at ``pos``; return it and the index just after it."""
        text = self.text
        c = text[pos : pos + 1]
        if c == "{":
            return self.obj(pos, depth + 1)
        if c == "[":
            return self.array(pos, depth + 1)
        if c == '"':
            return self.string(pos)
        if c == "-" or "0" <= c <= "9":  # not str.isdigit(): that accepts non-ASCII digits
            m = _NUMBER.match(text, pos)
            if m is None:
                self.fail("a digit after '-'", pos + 1)
            return self.number(m, float if m.group(1) or m.group(2) else int)
        for word, result in _KEYWORDS.items():
            if text.startswith(word, pos):
                return result, pos + len(word)
        self.fail("a value", pos)

    def number(self, m: re.Match[str], kind: type[int] | type[float]) -> tuple[int | float, int]:
        """The number ``m`` matched (a value or an integer key), refused past MAX_NUMBER_LENGTH characters."""
        if m.end() - m.start() > MAX_NUMBER_LENGTH:
            raise FastjsonError.at(f"number too long ({m.end() - m.start()} characters, at most {MAX_NUMBER_LENGTH})",
                                   self.text, m.start())
        return kind(m.group()), m.end()

    def obj(self, pos: int, depth: int) -> tuple[dict[str | int, object], int]:
        if depth > MAX_DEPTH:
            raise FastjsonError.at(f"nesting deeper than {MAX_DEPTH}", self.text, pos)
        text = self.text
        result: dict[str | int, object] = {}
        pos = self.ws(pos + 1)
        if text.startswith("}", pos):
            return result, pos + 1
        while True:
            key: str | int
            if text.startswith('"', pos):
                key, pos = self.string(pos)
            else:
                m = _INT_KEY.match(text, pos)  # fastjson's unquoted Integer/Long map key
                if m is None:
                    self.fail("a string or integer key", pos)
                key, pos = self.number(m, int)
            pos = self.ws(pos)
            if not text.startswith(":", pos):
                self.fail("':'", pos)
            result[key], pos = self.value(self.ws(pos + 1), depth)
            pos = self.ws(pos)
            c = text[pos : pos + 1]
            if c == "}":
                return result, pos + 1
            if c != ",":
                self.fail("',' or '}'", pos)
            pos = self.ws(pos + 1)

    def array(self, pos: int, depth: int) -> tuple[list[object], int]:
        if depth > MAX_DEPTH:
            raise FastjsonError.at(f"nesting deeper than {MAX_DEPTH}", self.text, pos)
        text = self.text
        result: list[object] = []
        pos = self.ws(pos + 1)
        if text.startswith("]", pos):
            return result, pos + 1
        while True:
            item, pos = self.value(pos, depth)
            result.append(item)
            pos = self.ws(pos)
            c = text[pos : pos + 1]
            if c == "]":
                return result, pos + 1
            if c != ",":
                self.fail("',' or ']'", pos)
            pos = self.ws(pos + 1)

    def string(self, pos: int) -> tuple[str, int]:
        """Parse the string whose opening quote is at ``pos``."""
        text = self.text
        parts: list[str] = []
        i = pos + 1
        while True:
            m = _STR_CHUNK.match(text, i)
            assert m is not None  # `*` always matches
            parts.append(m.group())
            i = m.end()
            if i >= len(text):
                raise FastjsonError.at("unterminated string", text, pos)
            c = text[i]
            if c == '"':
                return "".join(parts), i + 1
            if c != "\\":
                raise FastjsonError.at(f"unescaped control character {c!r} in string", text, i)
            esc = text[i + 1 : i + 2]
            if esc in _SIMPLE_ESCAPES:
                parts.append(_SIMPLE_ESCAPES[esc])
                i += 2
            elif esc == "u":
                code, i = self.hex4(i)
                if 0xD800 <= code < 0xDC00 and text.startswith("\\u", i):
                    low, after = self.hex4(i)
                    if 0xDC00 <= low < 0xE000:  # surrogate pair -> one code point
                        code, i = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00), after
                parts.append(chr(code))  # a lone surrogate stays one, as in json.loads
            elif esc == "":
                raise FastjsonError.at("unterminated string", text, pos)
            else:
                raise FastjsonError.at(f"invalid escape '\\{esc}' in string", text, i)

    def hex4(self, i: int) -> tuple[int, int]:
        """Parse the ``\\uXXXX`` escape at ``i``; return the code unit and the index after it."""
        if _HEX4.match(self.text, i + 2) is None:
            raise FastjsonError.at("invalid \\u escape (need 4 hex digits)", self.text, i)
        return int(self.text[i + 2 : i + 6], 16), i + 6


# Characters fastjson escapes inside double quotes (SerializeWriter.writeStringWithDoubleQuote).
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\\x7f-\x9f\u2028]')
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    return _SHORT_ESCAPES.get(c) or f"\\u{ord(c):04X}"


def _quote(s: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(_escape, s) + '"'


def dumps(value: object) -> str:
    """Write ``value`` the way fastjson's pretty format does (see the module docstring for the rules).

    dict keys must be ``str`` or ``int`` and are written in the order given: callers sort bean fields
    alphabetically and drop ``None`` fields themselves, as fastjson would (``None`` is written as
    ``null`` here, never omitted). Lists and tuples are written inline. No trailing newline.
    """
    out: list[str] = []
    _write(value, 0, out)
    return "".join(out)


def _write(value: object, depth: int, out: list[str]) -> None:
    """Append ``value``; ``depth`` is the indentation (in tabs) of the line that holds its closing brace."""
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"fastjson has no literal for {value!r}")
        out.append(repr(value))
    elif isinstance(value, str):
        out.append(_quote(value))
    elif isinstance(value, dict):
        out.append("{")
        newline = "\n" + "\t" * (depth + 1)
        for n, (key, item) in enumerate(value.items()):
            if n:
                out.append(",")
            if isinstance(key, str):
                out.append(newline)  # println only before string keys
                out.append(_quote(key))
            elif isinstance(key, int) and not isinstance(key, bool):
                out.append(str(key))  # non-string key: unquoted, same line
            else:
                raise TypeError(f"dict key must be str or int, not {type(key).__name__}")
            out.append(":")
            _write(item, depth + 1, out)
        if value:
            out.append("\n" + "\t" * depth)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for n, item in enumerate(value):
            if n:
                out.append(",")
            _write(item, depth, out)  # CollectionCodec does not indent
        out.append("]")
    else:
        raise TypeError(f"cannot write {type(value).__name__} as fastjson")


def split_topic_group(key: str) -> tuple[str, str]:
    """Split a consumerOffset key ``topic@group`` on the first ``@`` (spec §7.3).

    Topic names cannot contain ``@`` (TopicValidator allows ``[%|a-zA-Z0-9_-]``), so the first ``@`` ends
    the topic; a 5.x broadcast key ``topic@group@broadcast`` gives ``("topic", "group@broadcast")``.
    """
    topic, sep, group = key.partition("@")
    if not sep:
        raise ValueError(f"consumer offset key without '@': {key!r}")
    return topic, group
