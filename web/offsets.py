"""64-bit offsets travel to the browser as strings: JavaScript numbers are exact only up to 2**53.

Fields sent as strings, wherever they appear in a JSON response (and in JSON embedded in pages):

* every field whose name ends in ``_offset``: ``physical_offset``, ``stored_physical_offset``,
  ``queue_offset``, ``prepared_transaction_offset``, ``start_offset``, ``end_offset``, ``min_offset``,
  ``max_offset``, ``begin_phy_offset``, ``end_phy_offset``, ``master_flushed_offset``, ``confirm_phy_offset``,
  ``consumer_offset``, ``min_physical_offset``, ``max_physical_offset``, ``prev_offset``, ``next_offset``,
  ``cq_queue_offset``;
* ``offset``, ``phy_offset``, ``valid_end``, ``max_physical_end``, ``from``, ``next_from``, ``prev_from``,
  ``newest_from``,
  ``window_start``, ``window_end``, and ``start`` / ``end`` (hex regions and fields).

Everything else stays a JSON number: sizes, positions inside one file, counts, item numbers, hashes, queue
ids and timestamps (epoch ms). ``null`` stays ``null``.
"""

from __future__ import annotations

STRING_FIELDS = frozenset({"offset", "phy_offset", "valid_end", "max_physical_end", "from", "next_from", "prev_from",
                           "newest_from",
                           "window_start", "window_end", "start", "end"})


def is_offset_field(name: str) -> bool:
    return name in STRING_FIELDS or name.endswith("_offset")


def stringify_offsets(value):
    """A copy of ``value`` (dicts, lists, scalars) with the offset fields above as decimal strings."""
    if isinstance(value, dict):
        return {k: (str(v) if is_offset_field(k) and isinstance(v, int) and not isinstance(v, bool)
                    else stringify_offsets(v)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [stringify_offsets(v) for v in value]
    return value
