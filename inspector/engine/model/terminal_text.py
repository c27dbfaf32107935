"""Store text made safe for a terminal: the one sanitiser every view uses before a string from a store is shown.

A producer chooses every body, key, tag, topic, property and (through the broker) file and folder name in a
store. Shown raw, ``ESC ] 0 ; title BEL`` retitles the operator's terminal, ``ESC [ 2 J`` clears it and a
right-to-left override (U+202E) makes ``exe.txt`` read ``txt.exe``. Every such character is shown visibly
escaped instead, the way Python's ``repr`` spells it (``\\x1b``, ``\\x7f``, ``\\u202e``), and a byte that was no
UTF-8 (it reaches the views as a lone surrogate: the engine decodes with ``surrogateescape``) as ``\\xNN``.
JSON output needs none of this: it is escaped by construction.

Markup (Rich's ``[bold]``, Textual's ``[@click=…]``) is a second, separate danger: the views never pass store
text where markup is interpreted (``rich.text.Text`` objects, consoles with markup off); this module only
deals with characters.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls; the bidirectional embeddings, overrides and isolates (U+202A-U+202E,
# U+2066-U+2069) and marks (U+061C, U+200E, U+200F); the line and paragraph separators (U+2028, U+2029), which
# some terminals and every browser treat as a line break; lone surrogates (bytes that were no UTF-8).
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_ANY = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
# the same but for a line feed and a tab, which are layout, not danger: multi-line bodies keep their lines
_UNSAFE_MULTILINE = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")


_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape's spelling of the undecodable byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def terminal_text(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character, bidi control, line separator and undecodable byte shown as an
    escape (``\\x1b``, ``\\u202e``, ``\\xff``; ``\\n``, ``\\t``, ``\\r`` as Python spells them). With
    ``multiline`` a line feed and a tab stay as they are (a body shown as text keeps its lines); a carriage
    return is escaped either way (it would overwrite the line). Text with nothing to escape comes back unchanged (the same object)."""
    pattern = _UNSAFE_MULTILINE if multiline else _UNSAFE_ANY
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escaped, text)


def has_terminal_controls(text: str) -> bool:
    """Whether ``text`` holds a character ``terminal_text`` would escape (line feeds and tabs included)."""
    return _UNSAFE_ANY.search(text) is not None
