"""Message bodies: decompression per the sysFlag codec (spec §2.5)."""

from __future__ import annotations

import io
import zlib

from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Message

MAX_DECOMPRESSED = 64 << 20  # a hostile body must not exhaust memory


class CodecMissing(StoreError):
    """The body's codec library is not installed: nothing is known about the bytes."""


def decompress_body(msg: Message, limit: int = MAX_DECOMPRESSED) -> bytes:
    """The body as the producer sent it; the stored bytes when the body is not compressed.

    Raises StoreError naming the record when the codec is unknown, missing, or the data is corrupt.
    """
    if not msg.compressed:
        return msg.body
    codec = msg.compression
    try:
        if codec == "ZLIB":
            d = zlib.decompressobj()
            out = d.decompress(msg.body, limit)
            if d.unconsumed_tail:
                raise StoreError(f"decompressed body exceeds {limit} bytes", msg.file, msg.position)
            _whole(d.eof, codec, msg)
            return out
        if codec == "LZ4":
            try:
                import lz4.frame
            except ImportError:
                raise CodecMissing("LZ4 body: install the 'compression' extra (lz4)", msg.file, msg.position) from None
            d = lz4.frame.LZ4FrameDecompressor()
            out = d.decompress(msg.body, max_length=limit + 1)
            if len(out) > limit:
                raise StoreError(f"decompressed body exceeds {limit} bytes", msg.file, msg.position)
            _whole(d.eof, codec, msg)
            return out
        if codec == "ZSTD":
            try:
                import zstandard
            except ImportError:
                raise CodecMissing("ZSTD body: install the 'compression' extra (zstandard)", msg.file, msg.position) from None
            # a frame that declares its size is decoded to that size whatever max_output_size says: read a stream
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(msg.body)) as reader:
                out = reader.read(limit + 1)
            if len(out) > limit:
                raise StoreError(f"decompressed body exceeds {limit} bytes", msg.file, msg.position)
            # the stream reader gives a cut frame's bytes without a word; the whole body is at most ``limit``
            # bytes decoded here, so decode it again to learn whether the frame ended
            d = zstandard.ZstdDecompressor().decompressobj()
            d.decompress(msg.body)
            _whole(d.eof, codec, msg)
            return out
    except StoreError:
        raise
    except Exception as e:  # noqa: BLE001 - codec libraries raise their own types
        raise StoreError(f"{codec} body does not decompress: {e}", msg.file, msg.position) from None
    raise StoreError(f"unknown compression type {codec}", msg.file, msg.position)


def _whole(ended: bool, codec: str, msg: Message) -> None:
    """A compressed body must hold its whole stream: the decoders return what a cut one holds without complaint (a
    2-byte body read as LZ4 gives b""), where the broker's Java codecs raise (EOFException, "Unexpected end")."""
    if not ended:
        raise StoreError(f"{codec} body does not decompress: the compressed stream ends early", msg.file,
                         msg.position)
