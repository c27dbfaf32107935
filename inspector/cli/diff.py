"""``rmq-inspect diff A B``: two stores compared by physical offset. Exit codes as cmp/diff: 0 identical,
1 differences, 2 usage, 3 a store cannot be read (B is not a store)."""

from __future__ import annotations

from rich.text import Text

from inspector.cli.output import console, err_console, plain, print_json, table
from inspector.engine import Store, diff_view, store_diff


def run(a: Store, b: Store, as_json: bool, limit: int) -> int:
    d = store_diff(a, b, limit)
    view = diff_view(d)
    if as_json:
        print_json(view)
    else:
        _tables(view)
    for note in d.left_out:
        err_console.print(Text(f"rmq-inspect: a partial answer: {note}"), soft_wrap=True)
    return 0 if d.identical else 1


def _tables(v: dict) -> None:
    if v["identical"]:
        console.print("the stores are identical (commitlog, consume queues, index items, checkpoint, config"
                      + (", DLedger terms)" if v["dledger_terms"] else ")"), markup=False)
        return
    fd = v["first_divergence"]
    console.print(f"commitlogs first diverge at offset {fd:,}" if fd is not None else "commitlogs agree",
                  markup=False)
    t = table("Commitlog ranges", "where", "start", "end", "bytes")
    for key, label in (("only_in_a", "only in A"), ("only_in_b", "only in B"), ("differing", "differ")):
        for r in v[key]:
            t.add_row(label, f"{r['start']:,}", f"{r['end']:,}", f"{r['end'] - r['start']:,}")
    console.print(t)
    if v["records"]:
        t = table("Records that differ", "offset", "fields", "note")
        for r in v["records"]:
            t.add_row(f"{r['offset']:,}", ", ".join(r["fields"]), plain(r["note"]))
        console.print(t)
    if v["queues"]:
        t = table("Queues that differ", "topic", "queue", "A min..max", "B min..max", "first differing unit")
        for q in v["queues"]:
            t.add_row(plain(q["topic"]), str(q["queue_id"]), f"{q['min_a']}..{q['max_a']}",
                      f"{q['min_b']}..{q['max_b']}", str(q["first_differing_unit"]))
        console.print(t)
    if v["index_only_in_a"] or v["index_only_in_b"]:
        t = table(f"Index items in one store only (A: {v['index_only_in_a']:,}, B: {v['index_only_in_b']:,})",
                  "in", "file", "phyOffset", "keyHash", "key")
        for i in v["index_items"]:
            t.add_row(i["side"], plain(i["file"]), f"{i['phy_offset']:,}", str(i["key_hash"]), plain(i["key"]))
        console.print(t)
    terms = v["dledger_terms"]
    if terms and not terms["same"]:
        t = table("DLedger terms", "member", "last index", "last term", "indexes only here")
        for side in ("a", "b"):
            t.add_row(plain(terms[f"member_{side}"]), str(terms[f"last_index_{side}"]), str(terms[f"last_term_{side}"]),
                      f"{terms[f'only_in_{side}']:,}")
        console.print(t)
        at = terms["diverges_at"]
        console.print(f"the logs diverge at Raft index {at:,} (term {terms['term_a']} in A, {terms['term_b']} in B)"
                      if at is not None else "the logs agree on every index both hold", markup=False)
    if v["files"]:
        t = table("Checkpoint and config fields that differ", "file", "field", "A", "B")
        for f in v["files"]:
            t.add_row(plain(f["file"]), plain(f["field"]), plain(str(f["a"])), plain(str(f["b"])))
        console.print(t)
