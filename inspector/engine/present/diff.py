"""A StoreDiff as JSON-ready rows (CLI --json, the TUI and web tables). Store text (topics, config values) is
returned as is: the terminal sanitiser escapes it where it is shown."""

from __future__ import annotations

from dataclasses import asdict

from inspector.engine.read.diff.result import StoreDiff


def diff_view(d: StoreDiff) -> dict:
    return {
        "identical": d.identical,
        "first_divergence": d.first_divergence,
        "only_in_a": [asdict(r) for r in d.only_in_a],
        "only_in_b": [asdict(r) for r in d.only_in_b],
        "differing": [asdict(r) for r in d.differing],
        "records": [{"offset": r.offset, "fields": list(r.fields), "note": r.note} for r in d.records],
        "queues": [asdict(q) for q in d.queues],
        "files": [asdict(f) for f in d.files],
        "index_items": [asdict(i) for i in d.index_items],
        "index_only_in_a": d.index_only_in_a,
        "index_only_in_b": d.index_only_in_b,
        "dledger_terms": None if d.terms is None else {**asdict(d.terms), "same": d.terms.same},
        "partial": bool(d.left_out),
        "left_out": list(d.left_out),
    }
