"""decompress_body: a compressed body must hold its whole stream. The Python decoders return what a cut stream
holds without complaint (LZ4 and ZSTD give b"" for a 2-byte body, zlib a prefix), where the broker's Java codecs
raise; verify must call such a record damaged (the mutation fuzzer met LZ4 on a 2-byte body: verify exit 0)."""

from __future__ import annotations

import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from external_tools import import_or_skip

from inspector.engine.model.errors import StoreError
from inspector.engine.read.commitlog.body import decompress_body
from inspector.engine.read.store.store import Store

SAMPLE = Path(__file__).parents[5] / "sample_store"
TYPE = {"LZ4": 0x100, "ZSTD": 0x200, "ZLIB": 0x300}  # MessageSysFlag compression type bits, with bit 0 (compressed)
TEXT = b'{"order":1108,"note":"' + b"x" * 400 + b'"}'


def _compress(codec: str, data: bytes) -> bytes:
    if codec == "ZLIB":
        return zlib.compress(data)
    if codec == "LZ4":
        return import_or_skip("lz4.frame").compress(data)
    return import_or_skip("zstandard").ZstdCompressor().compress(data)


@pytest.fixture(scope="module")
def plain():
    with Store(SAMPLE) as s:
        yield next(m for m in s.entries(0) if hasattr(m, "body") and not m.compressed)


@pytest.mark.parametrize("codec", sorted(TYPE))
def test_a_whole_stream_decompresses_and_a_cut_one_is_an_error(plain, codec):
    whole = _compress(codec, TEXT)
    msg = replace(plain, sys_flag=TYPE[codec] | 1, body=whole)
    assert msg.compression == codec
    assert decompress_body(msg) == TEXT
    for cut in (whole[:2], whole[: len(whole) // 2], whole[:-1]):
        with pytest.raises(StoreError, match="does not decompress"):
            decompress_body(replace(msg, body=cut))


@pytest.mark.parametrize("codec,package", [("LZ4", "lz4"), ("ZSTD", "zstandard")])
def test_a_missing_codec_library_is_named(plain, codec, package, monkeypatch):
    """Without the 'compression' extra the body is not guessed at: the answer names the library to install."""
    msg = replace(plain, sys_flag=TYPE[codec] | 1, body=b"\x00" * 16)
    for name in (package, f"{package}.frame"):
        monkeypatch.setitem(__import__("sys").modules, name, None)  # None in sys.modules: import raises ImportError
    with pytest.raises(StoreError, match=f"{codec} body: install the 'compression' extra \\({package}\\)"):
        decompress_body(msg)


@pytest.mark.parametrize("codec", sorted(TYPE))
def test_the_limit_is_exact_and_a_prefix_is_cut_there(plain, codec):
    msg = replace(plain, sys_flag=TYPE[codec] | 1, body=_compress(codec, TEXT))
    assert decompress_body(msg, len(TEXT)) == TEXT  # exactly the limit: whole
    with pytest.raises(StoreError, match=f"exceeds {len(TEXT) - 1} bytes"):
        decompress_body(msg, len(TEXT) - 1)
    assert decompress_body(msg, 10, prefix=True) == TEXT[:10]
