"""The compiled JSON Lines writer (kernel_source._kn_json_lines) gives the bytes of its Python twin, record for
record: on the sample store and on records built to hit every corner of the properties (quotes, backslashes,
non-ASCII, control characters, bytes that are no UTF-8, repeated and empty names, KEYS with runs of spaces),
hosts (IPv6), topics and compression; with --decompress, --topic and --limit."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from external_tools import NUMBA, need

from inspector.cli.main import main
from inspector.engine.present import views_bulk
from inspector.engine.scan import kernels
from parsers import commitlog as cl

SAMPLE = Path(__file__).parents[4] / "sample_store"
DLEDGER = Path(__file__).parents[4] / "sample_store_dledger"

PROPERTIES = [
    {"TAGS": "created", "KEYS": "order-1 cust-2", "UNIQ_KEY": "0A0B0C0D"},
    "",
    'TAGS\x01a"b\\c\x02KEYS\x01 k1  k2 \x02UNIQ_KEY\x01u-1\x02',
    "A\x01x\x02B\x01y\x02A\x01z\x02",  # a repeated name: the dict keeps its first place and last value
    "\x01nameless\x02EMPTY\x01\x02NOVALUE\x02KEYS\x01\x02",
    "N\x01tab\there\x02",  # a control character (escaped by orjson)
    "N\x01value\x01with\x01separators\x02",
    "TAGS\x01中文\x02KEYS\x01键 值\x02DEL\x01\x7f/\x02",
    "ZZ\x01marker-for-bad-utf8\x02",
    "TAGS\x01" + "t" * 3000 + "\x02",
]


def _specs() -> list[dict]:
    specs = [dict(properties=p, queue_offset=i, topic="TopicTest" if i % 2 else "主题") for i, p in
             enumerate(PROPERTIES)]
    specs.append(dict(properties={"TAGS": "zipped"}, body=zlib.compress(b'{"a":1}' * 40),
                      sys_flag=cl.COMPRESSED_FLAG))
    specs.append(dict(properties={"KEYS": "v6"}, born_host=("fe80::1", 4242), store_host=("2001:db8::7", 10911),
                      sys_flag=0x10 | 0x20))  # BORNHOST_V6_FLAG | STOREHOSTADDRESS_V6_FLAG
    specs.append(dict(properties={"TAGS": "neg"}, queue_offset=-5, reconsume_times=-1, body=b""))
    specs.append(dict(properties={"TAGS": "two"}, body=b"ab"))
    return specs * 3


@pytest.fixture(scope="module")
def tricky(tmp_path_factory, write_commitlog) -> Path:
    root = tmp_path_factory.mktemp("views-bulk") / "store"
    write_commitlog(root, _specs(), segment_size=1 << 20)
    seg = root / "commitlog" / f"{0:020d}"
    data = bytearray(seg.read_bytes())
    at = data.find(b"marker-for-bad-utf8")
    data[at] = 0xFF  # no UTF-8 any more (the Python path escapes it as \udcff)
    seg.write_bytes(bytes(data))
    return root


def _run(capsysbinary, root: Path, argv: list[str]) -> bytes:
    assert main(["messages", str(root), "--json", "--limit", "1000000", *argv]) == 0
    return capsysbinary.readouterr()[0]


@pytest.mark.parametrize("where", ["sample", "tricky", "dledger"])
@pytest.mark.parametrize("argv", [[], ["--decompress"], ["--topic", "TopicTest"], ["--topic", "OrderEvents"],
                                  ["--limit", "7"]])
def test_the_kernel_writes_what_the_python_path_writes(capsysbinary, monkeypatch, tricky, where, argv):
    need(NUMBA)
    root = {"sample": SAMPLE, "tricky": tricky, "dledger": DLEDGER}[where]
    with kernels.python_only():
        expected = _run(capsysbinary, root, argv)
    used = []
    real = views_bulk._BatchEncoder._kernel_lines
    monkeypatch.setattr(views_bulk._BatchEncoder, "_kernel_lines",
                        lambda self, *a: used.append(1) or real(self, *a))
    got = _run(capsysbinary, root, argv)
    assert got == expected
    assert used or not expected  # the kernel wrote them (the store is small, but the kernels are loaded)


def test_the_tricky_store_reaches_every_fallback(capsysbinary, tricky):
    """The records above do hit the Python fallback where they should, and the kernel elsewhere."""
    need(NUMBA)
    out = _run(capsysbinary, tricky, []).decode()
    assert '"A":"z","B":"y"' in out  # repeated name
    assert "\\udcff" in out  # bad UTF-8, escaped
    assert '"tab\\there"' in out and '"keys":["k1","k2"]' in out and '"键","值"' in out
    assert out.count("\n") == len(_specs())


def test_each_batch_drops_its_pages_once_its_lines_are_written(monkeypatch):
    """The encoder reads a batch's records again after the walk released their pages: it releases them after
    itself, or a walk of many GiB keeps every page it encoded resident (8 GB for an 8 GiB store)."""
    from inspector.engine import MessageBatch, Store, json_lines

    released: list[tuple[int, int]] = []
    with Store(Path(__file__).resolve().parents[4] / "sample_store") as store:
        batches = list(store.commitlog.batches(batch_size=64))
        spans = []
        for b in batches:
            if isinstance(b, MessageBatch):
                spans.append((int(b.table[0, 0]), b.end))
                b.release_pages = (lambda span: lambda: released.append(span))(spans[-1])
        lines = b"".join(c for c in json_lines(batches) if isinstance(c, bytes))
    assert len(spans) > 3 and sorted(released) == sorted(spans)
    assert lines.count(b"\n") == sum(len(b) for b in batches if isinstance(b, MessageBatch))


@pytest.mark.parametrize("decompress", [False, True])
def test_dledger_lines_equal_message_view_record_for_record(capsysbinary, decompress):
    """On the DLedger sample both bulk paths (kernel, Python twin) give message_view's line for every record,
    "dledger" object included (its Raft index and term read from the 48 bytes before the record)."""
    from inspector.engine import Message, Store

    with Store(DLEDGER) as store, kernels.python_only():
        want = b"".join(views_bulk.record_line(m, decompress=decompress) for m in store.entries()
                        if isinstance(m, Message))
    argv = ["--decompress"] if decompress else []
    with kernels.python_only():
        assert _run(capsysbinary, DLEDGER, argv) == want
    assert _run(capsysbinary, DLEDGER, argv) == want
    first = want.split(b"\n")[100]  # the first entry of the first data file: by hand, Raft index 0 at pos 65,536
    assert b'"physical_offset":65584,' in first
    assert first.endswith(b',"dledger":{"raft_index":0,"term":1,"entry_position":0,"entry_size":460}' +
                          (b"" if not decompress else first[first.index(b',"body_decompressed_base64"'):-1]) + b"}")
