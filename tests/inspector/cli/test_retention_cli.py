"""The CLI on a store past its retention time (tests/aged_store.py): verify exits 0 with its info findings
counted apart; a lookup of a record retention removed says "expired", one of an absent record "no such", both
exit 1 (not found)."""

from __future__ import annotations

import json

from tests.aged_store import age_store, write_store


def test_verify_and_show_on_an_aged_store(tmp_path, cli) -> None:
    root = tmp_path / "s"
    written = write_store(root)
    aged = age_store(root, 2)
    code, out, _ = cli("verify", str(root), "--json")
    doc = json.loads(out)
    infos = [p for p in doc["problems"] if p["severity"] == "info"]
    assert code == 0 and doc["ok"] and (doc["errors"], doc["warnings"]) == (0, 0)
    assert doc["info"] == len(infos) == 7  # six queues' and one index file's expired leftovers
    code, out, _ = cli("verify", str(root))
    assert code == 0 and "no problems, 7 info finding(s)" in " ".join(out.split())
    gone = written[0].physical_offset
    code, _, err = cli("show", str(root), str(gone))
    assert code == 1 and f"expired: physical offset {gone} is below the log's first offset {aged.first_offset}" in err
    code, _, err = cli("show", str(root), str(10**9))
    assert code == 1 and "in no commitlog segment" in err and "expired" not in err


def test_key_lookup_of_an_expired_record_says_so(tmp_path, cli) -> None:
    """Segments deleted, index files not yet cleaned: the key's item is still there, its record is not."""
    root = tmp_path / "s"
    written = write_store(root)
    aged = age_store(root, 2, cleanup=False)
    gone = written[100]  # k100 of T1, below the first offset
    assert gone.physical_offset < aged.first_offset
    code, _, err = cli("key", str(root), "T1", "k100")
    assert code == 1 and f"expired: 1 index item(s) of T1#k100's hash point below the log's first offset " \
        f"{aged.first_offset} (at {gone.physical_offset})" in " ".join(err.split())
    code, _, err = cli("key", str(root), "T1", "no-such-key")
    assert code == 1 and "no message indexed under T1#no-such-key" in err and "expired" not in err
