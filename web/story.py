"""The story page's data (issue 30 item 1): ``story_view`` of the engine's ``story_of``, bounded for one request.

A story is found through the index files (one chain walk per topic holding the UNIQ_KEY), which takes
milliseconds; what no index file covers has to be scanned record by record, so the web scans it only up to
``SCAN_BYTES`` of log per request (the CLI scans it all): past that the answer says the range was not searched
and names the command that searches it. The records listed are capped at ``Limits.max_rows``, and the page says
so when cut.
"""

from __future__ import annotations

from inspector.engine import Store, story_of, story_view
from web.data import Limits

SCAN_BYTES = 64 << 20  # log no index file covers that one request scans for the story's copies (at ~1 GB/s: 0.1 s)


def story_data(store: Store, ref: str, key: str | None, limits: Limits, scan_bytes: int = SCAN_BYTES) -> dict:
    """``story --json``'s fields for ``ref`` (or topic ``ref`` and ``key``), plus ``unindexed_bytes`` and
    ``unindexed_scanned`` (False: the log no index covers was larger than ``scan_bytes`` and was not searched:
    ``notes`` says so), ``records_total`` and ``records_truncated``. NotFound, BadInput, StoreError as the CLI's."""
    gaps = store.index_coverage()[1]
    uncovered = sum(g.stop - g.start for g in gaps)
    scan = uncovered <= scan_bytes
    view = story_view(story_of(store, ref, key, scan=scan))
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
