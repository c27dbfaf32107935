"""The story page's data (issue 30 item 1): ``story_view`` of the engine's ``story_of``, bounded for one request.

A story is found through the index files (one chain walk per topic holding the UNIQ_KEY), which takes
milliseconds; what no index file covers has to be scanned record by record, so the web scans it only up to the
engine's ``UNINDEXED_SCAN_BYTES`` of log per request (the CLI scans it all): past that the answer says the range
was not searched and names the command that searches it. The request's deadline is the story's budget: when it
runs out (a slow disk, a damaged log) the story told so far is the answer and its notes say what was not read.
The records listed are capped at ``Limits.max_rows``, and the page says so when cut.
"""

from __future__ import annotations

from inspector.engine import UNINDEXED_SCAN_BYTES, Store, story_of, story_view
from web.data import Limits
from web.deadline import NO_DEADLINE, Deadline


def story_data(store: Store, ref: str, key: str | None, limits: Limits, scan_bytes: int = UNINDEXED_SCAN_BYTES,
               deadline: Deadline = NO_DEADLINE) -> dict:
    """``story --json``'s fields for ``ref`` (or topic ``ref`` and ``key``), plus ``unindexed_bytes`` and
    ``unindexed_scanned`` (False: the log no index covers was larger than ``scan_bytes`` and was not searched:
    ``notes`` says so), ``records_total`` and ``records_truncated``; ``deadline`` bounds the story (a cut one
    says so in ``notes``). NotFound, BadInput, StoreError as the CLI's."""
    gaps = store.index_coverage()[1]
    uncovered = sum(g.stop - g.start for g in gaps)
    scan = uncovered <= scan_bytes
    view = story_view(story_of(store, ref, key, scan=scan, budget=None if deadline.at is None else deadline))
    if not scan:
        command = f"rmq-inspect story STORE {ref}" + (f" {key}" if key is not None else "")
        view["notes"].append(f"{uncovered} bytes of log are covered by no index file: more than the web scans "
                             f"in one request ({scan_bytes} bytes), so copies there were not searched; `{command}` "
                             f"scans them")
    total = len(view["records"])
    view["records"] = view["records"][: limits.max_rows]
    for group in view["groups"]:  # a committed offset is a 64-bit queue offset: a string, as every offset is
        if isinstance(group.get("committed"), int):
            group["committed"] = str(group["committed"])
    return view | {"unindexed_bytes": uncovered, "unindexed_scanned": scan, "records_total": total,
                   "records_truncated": total > limits.max_rows}
