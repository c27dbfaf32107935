"""The CLI over log no index file covers (issue 29 item 2): key and show find by scan and say so, --no-scan says
the range was not searched, verify names the gap and exits 0; expired, unindexed and absent each answer their
own; store text in the answers is escaped."""

from __future__ import annotations

import json

from inspector.engine import Store
from inspector.engine.maintain.write.messagespec import MessageSpec
from inspector.engine.maintain.write.writer import StoreWriter
from tests.aged_store import GEOMETRY, age_store, write_store
from tests.unindexed_store import drop_newest_index, write_unindexed


def run(cli, *args: str) -> tuple[int, str, str]:
    """``cli``, with stderr's whitespace folded (Rich wraps long lines)."""
    code, out, err = cli(*args)
    return code, out, " ".join(err.split())


def _dropped(tmp_path):
    u = write_unindexed(tmp_path / "s")
    with Store(u.root) as s:
        (gap,) = s.index_coverage()[1]
    return u.root, u.written, gap, u.unique_key


def test_key_found_by_scan_and_not_searched(tmp_path, cli) -> None:
    root, written, gap, _ = _dropped(tmp_path)
    w = written[-1]
    code, out, err = run(cli, "key", str(root), w.topic, "k1499")
    assert code == 0 and str(w.physical_offset) in out and f"found by scan: no index covers {gap.text}" in err
    code, out, _ = run(cli, "key", str(root), w.topic, "k1499", "--json")
    doc = json.loads(out)
    assert code == 0 and [m["physical_offset"] for m in doc["messages"]] == [w.physical_offset]
    assert doc["messages"][0]["note"] == f"found by scan: no index covers {gap.text}"
    assert doc["unindexed_ranges"] == [{"start": gap.start, "end": gap.stop - 1, "after_index_file": gap.after,
                                        "before_index_file": None}] and doc["unindexed_scanned"] is True
    code, out, err = run(cli, "key", str(root), w.topic, "k1499", "--no-scan")
    assert code == 1 and f"{gap.text} is covered by no index and was not searched" in err
    code, out, err = run(cli, "key", str(root), w.topic, "k1499", "--no-scan", "--json")
    assert code == 1 and json.loads(out)["unindexed_scanned"] is False
    code, _, err = run(cli, "key", str(root), w.topic, "absent-key")
    assert code == 1 and f"searched the index files and scanned {gap.text}, which no index covers" in err


def test_show_by_unique_key_found_by_scan(tmp_path, cli) -> None:
    root, written, gap, uniq = _dropped(tmp_path)
    code, out, err = run(cli, "show", str(root), uniq)
    assert code == 0 and f"found by scan: no index covers {gap.text}" in err
    code, out, _ = run(cli, "show", str(root), uniq, "--json")
    view = json.loads(out)
    assert code == 0 and view["physical_offset"] == written[-1].physical_offset
    assert view["note"] == f"found by scan: no index covers {gap.text}"
    code, _, err = run(cli, "show", str(root), uniq, "--no-scan")
    assert code == 1 and f"no message with id {uniq} in this store" in err and "not searched" in err


def test_verify_names_the_gap_and_exits_0(tmp_path, cli) -> None:
    root, _, gap, _ = _dropped(tmp_path)
    code, out, _ = run(cli, "verify", str(root), "--json")
    doc = json.loads(out)
    gaps = [p for p in doc["problems"] if p["code"] == "index-gap"]
    assert code == 0 and len(gaps) == 1 and gaps[0]["severity"] == "warning"
    assert f"no index file covers {gap.text}" in gaps[0]["reason"]


def test_expired_unindexed_and_absent(tmp_path, cli) -> None:
    root = tmp_path / "s"
    written = write_store(root)
    aged = age_store(root, 2, cleanup=False)
    drop_newest_index(root)
    gone = next(i for i, w in enumerate(written) if w.physical_offset < aged.first_offset and w.topic == "T1")
    code, _, err = run(cli, "key", str(root), "T1", f"k{gone}")
    assert code == 1 and "expired" in err
    code, _, err = run(cli, "key", str(root), written[-1].topic, "k1499")
    assert code == 0 and "found by scan" in err
    code, _, err = run(cli, "key", str(root), "T1", "no-such-key")
    assert code == 1 and "no message indexed under T1#no-such-key" in err and "scanned" in err
    assert "expired" not in err


def test_store_text_found_by_scan_is_escaped(tmp_path, cli) -> None:
    """A key with a terminal control, found by scan: the answer shows it escaped, never the raw byte."""
    root = tmp_path / "s"
    with StoreWriter(root, GEOMETRY) as w:
        for i in range(300):
            w.append(MessageSpec(topic="T\x1b[31m", queue_id=0, body=b"x", keys=[f"k{i}\x1b[2J"],
                                 store_timestamp=1_758_272_400_000 + i))
    drop_newest_index(root)
    code, out, err = run(cli, "key", str(root), "T\x1b[31m", "k299\x1b[2J")
    assert code == 0 and "\x1b" not in out + err and "found by scan" in err


def test_decode_id_says_found_by_scan(tmp_path, cli) -> None:
    root, written, gap, uniq = _dropped(tmp_path)
    code, out, _ = run(cli, "decode-id", uniq, "--store", str(root), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["found_as"] == ["unique_key"]
    assert doc["unique_key"]["note"] == f"found by scan: no index covers {gap.text}"
    code, out, _ = run(cli, "decode-id", uniq, "--store", str(root))
    assert code == 0 and f"found by scan: no index covers {gap.text}" in " ".join(out.split())
