"""Message bodies: decompression per the sysFlag codec (spec §2.5), and the one preview every view shows."""

from __future__ import annotations

import codecs
import io
import json
import re
import zlib
from dataclasses import dataclass

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message
from inspector.engine.model.terminal_text import terminal_text

MAX_DECOMPRESSED = 64 << 20  # a hostile body must not exhaust memory


class CodecMissing(StoreError):
    """The body's codec library is not installed: nothing is known about the bytes."""


def decompress_body(msg: Message, limit: int = MAX_DECOMPRESSED, *, prefix: bool = False) -> bytes:
    """The body as the producer sent it; the stored bytes when the body is not compressed.

    With ``prefix``, at most its first ``limit`` bytes and no word when there are more (a preview needs no
    more, and decodes no more); a stream that ends within them is still an error.
    Raises StoreError naming the record when the codec is unknown, missing, or the data is corrupt.
    """
    if not msg.compressed:
        return msg.body[:limit] if prefix else msg.body
    codec = msg.compression
    step = _DECODE_AT_MOST.get(codec or "")
    if step is None:
        raise StoreError(f"unknown compression type {codec}", msg.file, msg.position)
    try:
        try:
            out, ended = step(msg.body, limit + 1)  # one byte past the limit tells "more" from "exactly"
        except ImportError:
            raise CodecMissing(f"{codec} body: install the 'compression' extra ({_PACKAGE[codec]})", msg.file,
                               msg.position) from None
        if len(out) > limit:
            if prefix:
                return out[:limit]
            raise StoreError(f"decompressed body exceeds {limit} bytes", msg.file, msg.position)
        _whole(ended, codec, msg)
        return out
    except StoreError:
        raise
    except Exception as e:  # noqa: BLE001 - codec libraries raise their own types
        raise StoreError(f"{codec} body does not decompress: {e}", msg.file, msg.position) from None


# Each codec's "decode at most n bytes": (the bytes, whether the stream ended within them). An ImportError means
# the codec's library is missing (the 'compression' extra).
def _zlib_at_most(body: bytes, n: int) -> tuple[bytes, bool]:
    d = zlib.decompressobj()
    out = d.decompress(body, n)
    return out, d.eof


def _lz4_at_most(body: bytes, n: int) -> tuple[bytes, bool]:
    import lz4.frame

    d = lz4.frame.LZ4FrameDecompressor()
    out = d.decompress(body, max_length=n)
    return out, d.eof


def _zstd_at_most(body: bytes, n: int) -> tuple[bytes, bool]:
    import zstandard

    # a frame that declares its size is decoded to that size whatever max_output_size says: read a stream
    with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(body)) as reader:
        out = reader.read(n)
    if len(out) >= n:
        return out, True  # past the caller's limit: cut or refused there, whether the frame ends is not asked
    # the stream reader gives a cut frame's bytes without a word; the whole body is under n bytes decoded here, so
    # decode it again to learn whether the frame ended
    d = zstandard.ZstdDecompressor().decompressobj()
    d.decompress(body)
    return out, d.eof


_DECODE_AT_MOST = {"ZLIB": _zlib_at_most, "LZ4": _lz4_at_most, "ZSTD": _zstd_at_most}
_PACKAGE = {"ZLIB": "zlib", "LZ4": "lz4", "ZSTD": "zstandard"}


def _whole(ended: bool, codec: str, msg: Message) -> None:
    """A compressed body must hold its whole stream: the decoders return what a cut one holds without complaint (a
    2-byte body read as LZ4 gives b""), where the broker's Java codecs raise (EOFException, "Unexpected end")."""
    if not ended:
        raise StoreError(f"{codec} body does not decompress: the compressed stream ends early", msg.file,
                         msg.position)


# -- showing a body ----------------------------------------------------------------------------------------------
#
# One preview for every view (the CLI's ``show`` and ``messages``, the TUI's detail pane, the web's message page and
# list): decompressed per the sysFlag, then shown as pretty JSON, text or a hex dump, cut at a limit with a note.
# The text is handed out raw (undecodable bytes as lone surrogates, as everywhere in the engine): a terminal view
# calls ``for_terminal`` (``terminal_text``), the web ``for_html`` and lets Jinja escape the markup.

BODY_VIEWS = ("auto", "text", "json", "hex")
JSON_PARSE_LIMIT = 8 << 20  # a larger body is not parsed to be pretty-printed (json.loads holds it whole, ~10x)
ONE_LINE_JSON = 100  # auto: a JSON body up to this many bytes is shown as written, not pretty-printed
_SNIFF = 4096  # bytes looked at to tell text from binary
_HEX_WIDTH = 16


@dataclass(frozen=True)
class HexRow:
    """One line of a hex dump: the offset in the body, 16 bytes in hex, and as ASCII ('.' for the rest)."""

    offset: int
    hex: str
    ascii: str

    def line(self) -> str:
        return f"{self.offset:08x}  {self.hex:<{_HEX_WIDTH * 3 - 1}}  {self.ascii}"


@dataclass(frozen=True)
class BodyPreview:
    """A message body as a view shows it.

    ``codec`` is the sysFlag's compression (None: stored plain); ``decompress_error`` says why the stored bytes are
    shown although the sysFlag says compressed. ``length`` counts the bytes previewed (decompressed, or stored).
    ``kind`` is what the body is (``json``, ``text``, ``binary``, ``empty``), ``view`` how it is shown (``json``
    pretty-printed, ``text``, ``hex``); ``json_error`` says why a body asked for as JSON is shown as text.
    ``text`` is what is shown, raw (the hex dump's lines for ``hex``); ``shown`` of ``total`` ``unit`` (bytes, or
    characters of the pretty-printed JSON) are in it.
    """

    stored_length: int
    codec: str | None
    decompress_error: str | None
    length: int
    kind: str
    view: str
    text: str
    hex_rows: tuple[HexRow, ...]
    shown: int
    total: int
    unit: str
    json_error: str | None = None

    @property
    def truncated(self) -> bool:
        return self.shown < self.total

    def describe(self) -> str:
        """What the bytes are: '1,704 bytes', 'ZLIB: 1,704 bytes stored, 13,991 decompressed', or the failure."""
        if self.codec is None:
            return f"{self.stored_length:,} bytes"
        if self.decompress_error is not None:
            return f"{self.stored_length:,} bytes stored, {self.codec}; shown as stored: {self.decompress_error}"
        return f"{self.codec}: {self.stored_length:,} bytes stored, {self.length:,} decompressed"

    def truncation_note(self, more: str = "") -> str | None:
        """'… truncated: showing 4,096 of 13,991 bytes (9,895 not shown; MORE)', None when all of it is shown.
        ``more`` tells how the view shows the rest (a flag, a file)."""
        if not self.truncated:
            return None
        hidden = f"{self.total - self.shown:,} not shown" + (f"; {more}" if more else "")
        what = " of the pretty-printed JSON" if self.unit == "characters" else ""
        return f"… truncated: showing {self.shown:,} of {self.total:,} {self.unit}{what} ({hidden})"

    def for_terminal(self) -> str:
        """``text`` safe on a terminal: lines and tabs kept, every other control and undecodable byte escaped."""
        return terminal_text(self.text, multiline=True)

    def for_html(self) -> str:
        """``text`` a page can encode: undecodable bytes as U+FFFD (the template escapes the markup)."""
        return _SURROGATES.sub("\ufffd", self.text)


def body_preview(msg: Message, view: str = "auto", limit: int = 4096) -> BodyPreview:
    """``msg``'s body as ``view`` shows it (``auto``: pretty JSON for a JSON object or array longer than
    ONE_LINE_JSON bytes, text for other UTF-8 text, a hex dump otherwise), decompressed per the sysFlag (a body that does not decompress: its stored bytes,
    and why), at most ``limit`` bytes (characters of pretty JSON) of it. Never raises for what the store holds."""
    if view not in BODY_VIEWS:
        raise ValueError(f"body view must be one of {', '.join(BODY_VIEWS)}, not {view!r}")
    data, error = msg.body, None
    if msg.compressed:
        try:
            data = decompress_body(msg)
        except StoreError as e:
            error = e.reason
    kind = _kind(data)
    parsed: object = _NOT_JSON
    json_error = None
    if view == "json" or (kind == "text" and data.lstrip()[:1] in (b"{", b"[")):
        parsed, json_error = _parse_json(data)
        if parsed is not _NOT_JSON:
            kind = "json"
        if view != "json":
            json_error = None  # nothing asked: a text that only looks like JSON is text
    if view == "auto":  # JSON short enough for one line reads best as written
        view = {"json": "json" if len(data) > ONE_LINE_JSON else "text", "binary": "hex"}.get(kind, "text")
    base = {"stored_length": len(msg.body), "codec": msg.compression if msg.compressed else None,
            "decompress_error": error, "length": len(data), "kind": kind, "json_error": json_error}
    if view == "json" and parsed is not _NOT_JSON:
        pretty = json.dumps(parsed, indent=2, ensure_ascii=False)
        return BodyPreview(**base, view="json", text=pretty[:limit], hex_rows=(), shown=min(len(pretty), limit),
                           total=len(pretty), unit="characters")
    if view == "hex":
        rows = hex_rows(data[:limit])
        return BodyPreview(**base, view="hex", text="\n".join(r.line() for r in rows), hex_rows=rows,
                           shown=min(len(data), limit), total=len(data), unit="bytes")
    text, used = _decode_prefix(data, limit)
    return BodyPreview(**base, view="text", text=text, hex_rows=(), shown=used, total=len(data), unit="bytes")


def body_line(msg: Message, width: int = 40) -> str:
    """A one-line preview for a list (a table cell): the start of the decompressed body as text, every control
    and line break escaped (``terminal_text``), '…' when there is more; ``<binary, N bytes> 00 01 …`` for bytes
    that are no text; ``<ZLIB body, does not decompress: N bytes stored>``. Decompresses only what it shows."""
    want = width * 4 + 4  # a character is at most 4 UTF-8 bytes
    data = msg.body
    compressed = msg.compressed
    if compressed:
        try:
            data = decompress_body(msg, want + 1, prefix=True)
        except StoreError:
            return f"<{msg.compression} body, does not decompress: {len(msg.body):,} bytes stored>"
    more = len(data) > want
    head = data[:want]
    if _kind(head, complete=not more) == "binary":
        size = f"{msg.compression}-compressed {len(msg.body):,} bytes" if compressed else f"{len(data):,} bytes"
        return f"<binary, {size}> " + head[:8].hex(" ") + (" …" if len(data) > 8 else "")
    text, _ = _decode_prefix(head, len(head), final=not more)
    cut = text[:width]
    return terminal_text(cut) + ("…" if more or len(text) > width else "")


def hex_rows(data: bytes) -> tuple[HexRow, ...]:
    """``data`` as hex dump rows of 16 bytes: offset, hex, ASCII (bytes outside 0x20-0x7e as '.')."""
    return tuple(HexRow(i, data[i:i + _HEX_WIDTH].hex(" "),
                        "".join(chr(b) if 32 <= b < 127 else "." for b in data[i:i + _HEX_WIDTH]))
                 for i in range(0, len(data), _HEX_WIDTH))


_NOT_JSON = object()
_SURROGATES = re.compile("[\ud800-\udfff]")  # undecodable bytes, and JSON's lone "\\ud800" escapes
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13))  # C0 but tab, line feed, form feed, CR


def _kind(data: bytes, complete: bool | None = None) -> str:
    """'empty', 'text' (UTF-8, no NUL, few controls in its first _SNIFF bytes) or 'binary'. A few controls in a
    short text (a coloured log line) keep it text: a terminal view shows them escaped."""
    if not data:
        return "empty"
    sample = data[:_SNIFF]
    if complete is None:
        complete = len(data) <= _SNIFF
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError:
        try:  # a sample cut inside a character is still text: the incremental decoder holds the cut bytes back
            codecs.getincrementaldecoder("utf-8")().decode(sample, final=complete)
        except UnicodeDecodeError:
            return "binary"
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return "binary" if 0 in sample or (controls > 4 and controls * 10 > len(sample)) else "text"


def _decode_prefix(data: bytes, limit: int, final: bool | None = None) -> tuple[str, int]:
    """The first ``limit`` bytes as text (undecodable bytes as lone surrogates, like every engine text) and how
    many bytes that text holds: a character cut at the limit is left out, not shown as a broken byte."""
    chunk = data[:limit]
    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    text = decoder.decode(chunk, final=len(data) <= limit if final is None else final)
    held = len(decoder.getstate()[0])
    return text, len(chunk) - held


def _parse_json(data: bytes) -> tuple[object, str | None]:
    if len(data) > JSON_PARSE_LIMIT:
        return _NOT_JSON, f"{len(data):,} bytes, more than the {JSON_PARSE_LIMIT:,} parsed to pretty-print"
    try:
        return json.loads(data.decode("utf-8")), None
    except UnicodeDecodeError as e:
        return _NOT_JSON, f"not UTF-8: {e.reason} at byte {e.start}"
    except RecursionError:
        return _NOT_JSON, "nested too deeply to pretty-print"
    except ValueError as e:
        return _NOT_JSON, str(e)
