"""The hex layout (``present.layout.message_fields``) agrees with the record as decoded, field by field: each span's
bytes hold what the decoder (itself held equal to the construct schema) read for that field, and the spans cover
the record exactly. So the hex views' reading of a record is the engine's one reading, not a second one."""

from __future__ import annotations

from pathlib import Path

from inspector.engine.model.records import Blank, Message
from inspector.engine.present.layout import blank_fields, message_fields
from inspector.engine.read.store.store import Store

SAMPLE = Path(__file__).resolve().parents[4] / "sample_store"

INT_FIELDS = {"TOTALSIZE": "total_size", "BODYCRC": "body_crc", "QUEUEID": "queue_id", "FLAG": "flag",
              "QUEUEOFFSET": "queue_offset", "PHYSICALOFFSET": "stored_physical_offset", "SYSFLAG": "sys_flag",
              "BORNTIMESTAMP": "born_timestamp", "STORETIMESTAMP": "store_timestamp",
              "RECONSUMETIMES": "reconsume_times", "PREPARED TRANSACTION OFFSET": "prepared_transaction_offset"}


def _check(store: Store, msg: Message) -> None:
    raw = store.commitlog.read(msg.physical_offset, msg.total_size)
    spans = message_fields(msg)
    assert spans[0].start == msg.physical_offset and spans[-1].end == msg.end_offset
    assert all(a.end == b.start for a, b in zip(spans, spans[1:], strict=False))
    for span in spans:
        data = raw[span.start - msg.physical_offset : span.end - msg.physical_offset]
        assert len(data) == span.length, span
        if span.name in INT_FIELDS:
            assert int.from_bytes(data, "big", signed=True) == getattr(msg, INT_FIELDS[span.name]), span
        elif span.name == "MAGICCODE":
            assert int.from_bytes(data, "big", signed=True) == msg.magic_code
        elif span.name == "BODY":
            assert data == msg.body
        elif span.name == "TOPIC":
            assert data == msg.topic.encode("utf-8", "surrogateescape")
        elif span.name == "PROPERTIES":
            assert data == msg.properties_text.encode("utf-8", "surrogateescape")
        elif span.name.endswith(" length"):
            assert int.from_bytes(data, "big") == spans[spans.index(span) + 1].length
        elif span.name in ("BORNHOST", "STOREHOSTADDRESS"):
            host = msg.born_host if span.name == "BORNHOST" else msg.store_host
            assert int.from_bytes(data[-4:], "big") == host.port and span.length in (8, 20)


def test_every_sample_record_is_laid_out_as_decoded() -> None:
    store = Store(SAMPLE)
    try:
        entries = list(store.entries())
        messages = [e for e in entries if isinstance(e, Message)]
        assert len(messages) > 300
        assert any(":" in m.born_host.ip for m in messages)  # an IPv6 host: 20-byte host fields
        for msg in messages:
            _check(store, msg)
        blanks = [e for e in entries if isinstance(e, Blank)]
        assert blanks
        for blank in blanks:
            total, magic = blank_fields(blank)
            raw = store.commitlog.read(blank.physical_offset, 8)
            assert int.from_bytes(raw[:4], "big") == blank.total_size == int(total.value.split()[0])
            assert raw[4:8].hex().upper() == magic.value.split()[0]
    finally:
        store.close()


def test_a_zeroed_page_is_described_once_wherever_the_hex_view_opens(tmp_path):
    """Issue 33: one description of one damage, the whole walk's (verify), from any start in or before it; the
    zeros named as they lie (a page, 4096..8192), not from where a walk happened to meet them."""
    from zeroed_page_store import zeroed_page_store

    from inspector.engine import Store, verify
    from inspector.engine.present.layout import regions

    root, seg = zeroed_page_store(tmp_path / "s")
    with Store(root) as store:
        found = [p for p in verify(store).problems if p.file == f"commitlog/{seg.name}"]
        assert len(found) == 1 and "(zeros at 4096..8192: 4096 zero bytes)" in found[0].reason
        for start in (4100, 4500, 6000, 8100, 8400):
            damaged = [r for r in regions(store.commitlog, start, start + 64) if r.kind == "damaged"]
            assert [(r.start, r.label) for r in damaged] == [(found[0].offset, found[0].reason)], start
