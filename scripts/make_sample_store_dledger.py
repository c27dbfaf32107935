#!/usr/bin/env python3
"""Generate the committed DLedger sample ``sample_store_dledger/``: the same day as ``sample_store/``
(``scripts/sample_store.toml``) stored by a DLedger broker (``enableDLegerCommitLog=true``, spec part 2 §16).

Usage::

    python scripts/make_sample_store_dledger.py [--out DIR]

The first ``PRE_DLEDGER`` records went to ``commitlog/`` before DLedger was switched on (its last segment is
padded with a BLANK: dividedCommitlogOffset = 65,536); the rest are entries of ``dledger-n0/data/``, in three
leader terms (``TERMS``: 1 from Raft index 0, 2 from 120, 4 from 230; term 3 was an election nobody won).
Sizes are kept small on purpose: data files are the scenario's 64 KiB segment size (a broker's default is
1 GiB), index files ``INDEX_FILE_SIZE`` = 8 KiB = 256 units (DLedger's default is 32 x 5,242,880 bytes).
Only the store entries of the target are replaced; ``README.md`` is written only when missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a plain script from a checkout
    sys.path.insert(0, str(REPO))

from make_sample_store import (  # noqa: E402
    SCENARIO,
    STORE_ENTRIES,
    replace_store_entries,
    scratch_store,
    write_store,
)
from sample_store_day import Scenario  # noqa: E402

from inspector.engine.maintain.write.dledger_log import DLedgerOptions  # noqa: E402

PRE_DLEDGER = 100
TERMS = {0: 1, 120: 2, 230: 4}
INDEX_FILE_SIZE = 32 * 256
SELF_ID = "n0"
ENTRIES = (*STORE_ENTRIES, f"dledger-{SELF_ID}")

README = """# sample_store_dledger

The day of `sample_store/` as a DLedger broker (`enableDLegerCommitLog=true`, `dLegerSelfId=n0`) stored it,
written by our own writer: `python scripts/make_sample_store_dledger.py` regenerates it byte for byte
(`tests/test_sample_store_dledger.py` checks that).

- `commitlog/00000000000000000000`: the 100 records written before DLedger was switched on, then a BLANK to the
  end of the segment: DLedger positions start at 65,536 (`dividedCommitlogOffset`).
- `dledger-n0/data/`: 302 entries (Raft index 0-301), each a 48-byte header (magic 1, size, index, term, pos,
  channel, chain CRC, body CRC, body length) and one commitlog record whose PHYSICALOFFSET is pos + 48. A file
  ends with -1 and the bytes remaining.
- Terms: 1 from index 0, 2 from index 120, 4 from index 230 (leader changes).
- `dledger-n0/index/`: one 32-byte unit per entry (magic, pos, size, index, term).
- `dledger-n0/checkpoint` (`endIndex`, `committedIndex`) and `currterm` (`voteLeader`, `currTerm`): Java
  properties text.
- `consumequeue/` and `index/` point at pos + 48, as the broker's dispatch writes them.

Small on purpose: data files are 64 KiB (`mappedFileSizeCommitLog=65536`; a broker's default is 1 GiB) and
DLedger index files 8 KiB = 256 units (DLedger's default is 32 x 5,242,880 bytes, which DLedgerCommitLog does
not change).
"""


def generate(target: Path) -> None:
    target = target.resolve()
    with scratch_store(target, ".sample_store_dledger-") as root:
        options = DLedgerOptions(self_id=SELF_ID, pre_dledger=PRE_DLEDGER, terms=TERMS, index_file_size=INDEX_FILE_SIZE)
        write_store(root, Scenario(SCENARIO), dledger=options)
        replace_store_entries(root, target, ENTRIES)
        if not (target / "README.md").exists():
            (target / "README.md").write_text(README, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "sample_store_dledger",
                        help="target directory (default: %(default)s)")
    args = parser.parse_args(argv)
    generate(args.out)
    total = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote {args.out} ({total:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
