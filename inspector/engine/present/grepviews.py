"""A grep hit and a search's end as JSON (``grep --json``: one line per hit, the web and TUI the same names)."""

from __future__ import annotations

from inspector.engine.model.terminal_text import terminal_text
from inspector.engine.present.views import printable
from inspector.engine.read.search.grep import GrepEnd, GrepHit


def grep_hit_view(hit: GrepHit) -> dict:
    """One hit: where the record is, what names it (offset msgId, UNIQ_KEY), its queue place, and the match with
    its context (undecodable bytes written ``\\xNN``)."""
    m = hit.message
    return {
        "physical_offset": m.physical_offset,
        "file": m.file,
        "position": m.position,
        "msg_id": m.msg_id,
        "unique_key": printable(m.unique_key) if m.unique_key is not None else None,
        "topic": printable(m.topic),
        "queue_id": m.queue_id,
        "queue_offset": m.queue_offset,
        "store_timestamp": m.store_timestamp,
        "tags": printable(m.tags) if m.tags is not None else None,
        "keys": [printable(k) for k in m.keys],
        "compression": m.compression,
        "fields": list(hit.fields),
        "field": printable(hit.field),
        "match_offset": hit.match_offset,
        "match": printable(hit.match),
        "context": printable(hit.before + hit.match + hit.after),
    }


def grep_end_view(end: GrepEnd) -> dict:
    """The search's figures, and ``truncated``: why it stopped early (None: the whole log was searched)."""
    return {"hits": end.hits, "records_decoded": end.records_decoded, "searched_bytes": end.searched_bytes,
            "total_bytes": end.total_bytes, "prefilter": end.how, "truncated": end.truncated}


def hit_context(hit: GrepHit, width: int) -> tuple[str, str, str]:
    """The match and its context for a terminal line (the CLI's listing, the TUI's table): each part escaped
    (``terminal_text``) first, so a cut never splits an escape, then the context cut to ``width`` characters on
    each side ("…" where cut). The match is shown whole."""
    before, after = terminal_text(hit.before), terminal_text(hit.after)
    if len(before) > width:
        before = "…" + before[-width:]
    if len(after) > width:
        after = after[:width] + "…"
    return before, terminal_text(hit.match), after
