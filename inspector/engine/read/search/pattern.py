"""A grep pattern: what is matched against each searched field, and the byte prefilter that finds the candidates.

A field matches when the pattern matches inside the field's own bytes (a body, a property value), so a match
never spans two fields or the record header. The prefilter runs over the mapped segment and must find every
record with a field match (it may find more, which the field check drops):

- a *literal* every match contains (the whole pattern with ``fixed``, else the longest run of plain characters
  the regex must match, e.g. ``order-`` of ``order-\\d+``): a field match holds it, so the record's bytes do.
  Searched with ``bytes.find`` (ASCII-lowered bytes with ``-i``): the fast path;
- else the regex itself over the segment's bytes, when the regex has no assertion (``^ $ \\b (?=`` ...), no
  atomic group and no possessive repeat: a match inside a field is then a match at the same place in the segment;
- else none: every record is a candidate (correct, much slower; said in ``SearchPattern.how``).

Compressed bodies are never in the segment's bytes: they are candidates whatever the prefilter says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as sre  # the parse tree's opcodes (stdlib, stable since 3.11)
from re import _parser as sre_parse

from inspector.engine.model.errors import BadInput

FIELDS = ("body", "keys", "tags", "props")
"""What ``--in`` names: the body (decompressed), KEYS and UNIQ_KEY, TAGS, every property's name and value."""
SEARCH_FIELDS = FIELDS  # the face's name


def parse_fields(text: str) -> tuple[str, ...]:
    """``--in``'s value (``body,keys``) as fields in FIELDS order; BadInput naming an unknown one."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [n for n in names if n not in FIELDS]
    if unknown or not names:
        raise BadInput(f"--in takes a comma-separated list of {', '.join(FIELDS)}, not {text!r}")
    return tuple(f for f in FIELDS if f in names)

MIN_LITERAL = 3  # a shorter literal (one letter) finds nearly every record: the regex prefilter does better


@dataclass(frozen=True)
class SearchPattern:
    """A compiled grep pattern. ``regex`` matches one field's bytes; ``literal`` (ASCII-lowered when ``fold``) or
    ``prefilter`` finds candidates in a segment; neither: every record is a candidate. ``how`` says which."""

    text: str
    fixed: bool
    ignore_case: bool
    regex: re.Pattern[bytes]
    literal: bytes
    fold: bool
    prefilter: re.Pattern[bytes] | None
    alternatives: tuple[bytes, ...] = ()  # no literal: one of these is in every match (a|b of literals)

    @property
    def how(self) -> str:
        folded = " (ASCII case folded)" if self.fold else ""
        if self.literal:
            return f"byte search for {self.literal!r}" + folded
        if self.alternatives:
            return "byte search for any of " + ", ".join(repr(a) for a in self.alternatives) + folded
        if self.prefilter is not None:
            return "regex search over the segment bytes"
        return "every record decoded (the regex has an assertion, an atomic group or a possessive repeat)"


def compile_pattern(text: str, *, fixed: bool = False, ignore_case: bool = False) -> SearchPattern:
    """``text`` (UTF-8) as a fixed string or a Python regex over bytes; BadInput for an empty pattern or a regex
    that does not compile (the message says where). ``ignore_case`` folds ASCII letters only (bytes regexes)."""
    if not text:
        raise BadInput("the pattern is empty: it would match every message")
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate typed in: nothing a store holds is spelled that way
        raise BadInput(f"the pattern {text!r} is not encodable as UTF-8") from None
    flags = re.IGNORECASE if ignore_case else 0
    source = re.escape(raw) if fixed else raw
    try:
        regex = re.compile(source, flags)
        tree = None if fixed else sre_parse.parse(source, flags)
    except re.error as e:
        where = f" at position {e.pos}" if e.pos is not None else ""
        raise BadInput(f"invalid regular expression {text!r}: {e.msg}{where} (--fixed searches it as written)") \
            from None
    except (OverflowError, RecursionError, ValueError) as e:  # absurd repeats or nesting: still the user's input
        raise BadInput(f"invalid regular expression {text!r}: {e}") from None
    fold = bool(regex.flags & re.IGNORECASE)  # -i, or (?i) written in the pattern
    if fixed:
        literal = raw
    else:
        literal = _required_literal(tree) if not _has_local_flags(tree) else b""
        if len(literal) < MIN_LITERAL:
            literal = b""
    alternatives = () if literal or tree is None or _has_local_flags(tree) else _alternatives(tree)
    prefilter = None
    if not literal and not alternatives and tree is not None and _position_free(tree):
        prefilter = regex
    if fold:
        literal, alternatives = literal.lower(), tuple(a.lower() for a in alternatives)
    return SearchPattern(text, fixed, ignore_case, regex, literal, fold, prefilter, alternatives)


MAX_ALTERNATIVES = 8  # more alternatives: one pass of the regex costs less than that many byte searches


def _alternatives(tree) -> tuple[bytes, ...]:
    """For a pattern with an alternation every match passes through (``refund|chargeback``,
    ``(refund|chargeback)-\\d+``: at its top level, or in a plain group there), the literal each alternative must
    contain; () when there is none whose every alternative has MIN_LITERAL bytes (or it has too many)."""
    for op, av in _top_level(tree):
        if op is not sre.BRANCH:
            continue
        found = tuple(_required_literal(alt) for alt in av[1])
        if len(found) <= MAX_ALTERNATIVES and all(len(a) >= MIN_LITERAL for a in found):
            return found
    return ()


def _top_level(items):
    """The items every match goes through in order: the top level, plain groups opened."""
    for op, av in items:
        if op is sre.SUBPATTERN and not av[1] and not av[2]:
            yield from _top_level(av[3])
        else:
            yield op, av


def _required_literal(tree) -> bytes:
    """The longest run of single characters every match of the parsed pattern contains, in order: LITERALs in
    sequence at the top level and inside plain groups; anything else (a class, a repeat, an alternation, an
    assertion) ends a run."""
    best = bytearray()
    run = bytearray()

    def walk(items) -> None:
        nonlocal best, run
        for op, av in items:
            if op is sre.LITERAL:
                run.append(av)
            elif op is sre.SUBPATTERN and not av[1] and not av[2]:  # (...) without local flags: its sequence
                walk(av[3])
            else:
                if len(run) > len(best):
                    best = run
                run = bytearray()

    walk(tree)
    return bytes(max(best, run, key=len))


def _has_local_flags(tree) -> bool:
    """True when a group sets its own flags ((?i:...)): its letters may match in another case than written."""
    return any(_ops(tree, lambda op, av: op is sre.SUBPATTERN and bool(av[1] or av[2])))


_ANCHORED = (sre.AT, sre.ASSERT, sre.ASSERT_NOT, sre.ATOMIC_GROUP, sre.POSSESSIVE_REPEAT)


def _position_free(tree) -> bool:
    """True when the pattern matches by the bytes it consumes only: no assertion (^ $ \\b lookarounds), atomic
    group or possessive repeat, whose answer can change when the field is seen inside the whole segment."""
    return not any(_ops(tree, lambda op, av: op in _ANCHORED))


def _ops(items, wanted):
    """Every (op, av) of the parse tree (groups, repeats, branches, lookarounds walked) for which ``wanted`` holds."""
    for op, av in items:
        if wanted(op, av):
            yield op, av
        for sub in _children(op, av):
            yield from _ops(sub, wanted)


def _children(op, av) -> list:
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return [av[2]]
    if op is sre.BRANCH:
        return list(av[1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    if op is sre.GROUPREF_EXISTS:
        return [b for b in av[1:] if b is not None]
    return []
