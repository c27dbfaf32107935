"""What an interrupted in-place rebuild leaves in a store root, as readers see it: names and a finding.

The writers (``inspector.engine.maintain.write.staging`` and ``.rebuild``) create these paths; readers only report them
and leave them alone, so the names live here, on the side both may import.
"""

from __future__ import annotations

from pathlib import Path

from inspector.engine.model.records import Problem

STAGING_MARK = ".rmq-inspect-staging-"
JOURNAL = ".rmq-inspect-journal"


def interrupted_rebuild_problems(root: Path) -> list[Problem]:
    """A journal or staging directory an in-place rebuild left behind (reported, never touched, by readers)."""
    try:
        names = sorted(p.name for p in root.iterdir() if p.name == JOURNAL or p.name.startswith(STAGING_MARK))
    except OSError:
        return []
    return [Problem(name, 0, "interrupted in-place rebuild; run rebuild --in-place again to finish it",
                    "interrupted-rebuild") for name in names]
