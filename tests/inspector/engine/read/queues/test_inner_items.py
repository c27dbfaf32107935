"""One inner-batch decoder: the engine's fast item walk (inner_messages, inner_item_frame) reads exactly what the
one declaration, parsers.commitlog.InnerBatchItem, parses, and the writer's frames are what it builds."""

from __future__ import annotations

from construct import GreedyRange

from inspector.engine import Host, Message, inner_messages
from inspector.engine.maintain.write.encode import encode_inner_batch
from inspector.engine.read.queues.batchconsumequeue import inner_item_frame
from parsers.commitlog import INNER_BATCH_FLAG, InnerBatchItem, Properties

ITEMS = [(0, b"a", Properties.from_map({"KEYS": "k1"})), (7, b"", Properties.from_map({})),
         (-1, "é\x00".encode() * 40, Properties.from_map({"TAGS": "t", "UNIQ_KEY": "u" * 32}))]


def _record(body: bytes) -> Message:
    host = Host("127.0.0.1", 10911)
    return Message("commitlog/0", 0, 0, 200 + len(body), -626843481, 0, 3, 0, 10, 0, INNER_BATCH_FLAG, 1, host, 2,
                   host, 0, 0, body, "T", (("INNER_NUM", str(len(ITEMS))),), True)


def test_the_fast_decoder_reads_what_the_schema_parses_and_the_writer_builds_what_it_does() -> None:
    body = encode_inner_batch(ITEMS)
    parsed = GreedyRange(InnerBatchItem).parse(body)
    assert body == b"".join(InnerBatchItem.build(p) for p in parsed)  # the writer's frame is the schema's
    inner = inner_messages(_record(body))
    assert [(m.flag, m.body, dict(m.properties), m.body_crc, m.queue_offset) for m in inner] == \
        [(p.flag, p.body, p.properties.as_map(), p.body_crc, 10 + i) for i, p in enumerate(parsed)]
    for m, p in zip(inner, parsed, strict=True):
        total, magic, crc, flag, body_length, props_length = inner_item_frame(body, m.item_position)
        assert (total, magic, crc, flag, body_length) == (p.total_size, p.magic_code, p.body_crc, p.flag, len(p.body))
        assert total == 22 + body_length + props_length
