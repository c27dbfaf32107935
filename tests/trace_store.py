"""A store with trace records of each type, written by our writer: TopicTest's message M (its UNIQ_KEY UK), the
trace messages a client's trace dispatcher would send for it (Pub, then SubBefore + SubAfter batched in one
body), an EndTransaction and a Recall of other messages, and one trace body of another shape. The bodies the
tests compare against are packed here by hand from encoderFromContextBean's format (rocketmq-all-5.3.1)."""

from __future__ import annotations

from pathlib import Path

from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.tracewrite import trace_spec
from inspector.engine.maintain.write.writer import StoreWriter

T0 = 1_700_000_000_000
UK = "7F00000100002A9F0000000000000001"
UK_TX = "7F00000100002A9F0000000000000002"
UK_RECALL = "7F00000100002A9F0000000000000003"
S, F = "\x01", "\x02"

PUB = {"type": "Pub", "timestamp": T0 + 1, "region_id": "DefaultRegion", "group": "pg", "topic": "TopicTest",
       "msg_id": UK, "tags": "TagA", "keys": "order-1 order-2", "store_host": "127.0.0.1:10911", "body_length": 5,
       "cost_time": 3, "msg_type": "Normal_Msg", "offset_msg_id": "OFFSET", "success": True}
SUB_BEFORE = {"type": "SubBefore", "timestamp": T0 + 50, "region_id": "DefaultRegion", "group": "cg",
              "request_id": "req-1", "msg_id": UK, "retry_times": 0, "keys": "order-1 order-2"}
SUB_AFTER = {"type": "SubAfter", "request_id": "req-1", "msg_id": UK, "cost_time": 7, "success": False,
             "keys": "order-1 order-2", "context_code": 1, "timestamp": T0 + 57, "group": "cg"}
END_TX = {"type": "EndTransaction", "timestamp": T0 + 70, "region_id": "DefaultRegion", "group": "txg",
          "topic": "TopicTx", "msg_id": UK_TX, "tags": "null", "keys": "null", "store_host": "127.0.0.1:10911",
          "msg_type": "Trans_Msg_Half", "transaction_id": "tx-9", "transaction_state": "COMMIT_MESSAGE",
          "from_transaction_check": False}
RECALL = {"type": "Recall", "timestamp": T0 + 80, "region_id": "DefaultRegion", "group": "pg",
          "topic": "TopicDelay", "msg_id": UK_RECALL, "success": True}

# the same records as the client writes them, by hand
PUB_TEXT = S.join(["Pub", str(T0 + 1), "DefaultRegion", "pg", "TopicTest", UK, "TagA", "order-1 order-2",
                   "127.0.0.1:10911", "5", "3", "0", "{offset_msg_id}", "true"]) + F
SUB_TEXT = (S.join(["SubBefore", str(T0 + 50), "DefaultRegion", "cg", "req-1", UK, "0", "order-1 order-2"]) + F
            + S.join(["SubAfter", "req-1", UK, "7", "false", "order-1 order-2", "1", str(T0 + 57), "cg"]) + F)
END_TX_TEXT = S.join(["EndTransaction", str(T0 + 70), "DefaultRegion", "txg", "TopicTx", UK_TX, "null", "null",
                      "127.0.0.1:10911", "1", "tx-9", "COMMIT_MESSAGE", "false"]) + F
RECALL_TEXT = S.join(["Recall", str(T0 + 80), "DefaultRegion", "pg", "TopicDelay", UK_RECALL, "true"]) + F
OTHER_TEXT = S.join(["SubAfter", "req-2", UK, "x"]) + F  # three fields after the type: no layout has that


def write_trace_store(root: Path) -> dict[str, int | str]:
    """The store at ``root``; the physical offset of each message by name (message, pub, sub, tx, recall,
    other), and ``msg_id``: the message's offset msgId."""
    at: dict[str, int | str] = {}
    with StoreWriter(root, clock=lambda: T0) as w:
        message = w.append(MessageSpec("TopicTest", b"hello", tags="TagA", keys=["order-1", "order-2"],
                                       unique_key=UK, store_timestamp=T0))
        at["message"], at["msg_id"] = message.physical_offset, message.msg_id
        pub = dict(PUB, offset_msg_id=message.msg_id)  # the Pub names the message's offset msgId, as sent back
        at["sub"] = w.append(trace_spec([SUB_BEFORE, SUB_AFTER], store_timestamp=T0 + 60)).physical_offset
        at["pub"] = w.append(trace_spec([pub], store_timestamp=T0 + 61)).physical_offset  # stored after the sub
        at["tx"] = w.append(trace_spec([END_TX], store_timestamp=T0 + 71)).physical_offset
        at["recall"] = w.append(trace_spec([RECALL], store_timestamp=T0 + 81)).physical_offset
        at["other"] = w.append(MessageSpec("RMQ_SYS_TRACE_TOPIC", OTHER_TEXT.encode(), keys=[UK],
                                           store_timestamp=T0 + 90)).physical_offset
    return at

