"""The segment files of a commitlog directory: the configured segment size inferred from them, and what is
wrong with their layout (entries that are no regular file, sizes, missing segments, overlaps).

Pure functions of the directory listing, so ``CommitLog`` reports the same problems however it is opened.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from inspector.engine.model.arguments import SEGMENT_SIZE
from inspector.engine.model.bounds import misalignment
from inspector.engine.model.records import Problem, Segment


def entry_kind(path: Path) -> str:
    """What a non-regular directory entry is, for a message."""
    if path.is_symlink() and not path.exists():
        return "a dangling symbolic link"
    if path.is_dir():
        return "a directory"
    return "no regular file"


EMPTY_SEGMENT_REASON = ("an empty file in {folder}/: the broker's load refuses a file whose length is not the segment "
                        "size and does not start (apache/rocketmq#3257; some newer versions delete an empty last "
                        "file instead); move it away")
"""An empty file in a commitlog folder, as the census says it (``empty-segment``; the log's reader says it short)."""


def not_file_problems(rel_dir: str, not_files: list[Path], what: str, code: str) -> list[Problem]:
    """One error for each entry of ``rel_dir`` named like a file of ``what`` that is no regular file (a FIFO, a
    device, a folder, a dangling link): the reader skipped it without opening it."""
    return [Problem(f"{rel_dir}/{path.name}", 0, f"{entry_kind(path)} where {what} should be: skipped", code)
            for path in not_files]


def infer_segment_size(sizes: list[int], starts: list[int] | None = None) -> int | None:
    """The configured segment size.

    The most common non-zero file size, if every gap between consecutive names (names are offsets) is a
    multiple of it: a missing middle segment leaves a double gap. Otherwise (a grown or cut file made the
    sizes disagree) the most common gap. Ties go to the smaller value. Only sizes and gaps a broker can be
    configured with count (``--segment-size``'s range: mappedFileSizeCommitLog is a Java int): files
    sparse-extended to a TiB make no 1 TiB segment size, which every walk and check would then be sized by.
    """
    counts = Counter(s for s in sizes if s > 0 and SEGMENT_SIZE.fits(s))
    size = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0] if counts else None
    gaps = Counter(b - a for a, b in zip(starts or [], (starts or [])[1:], strict=False)
                   if b > a and SEGMENT_SIZE.fits(b - a))
    if size and all(g % size == 0 for g in gaps):
        return size
    if size and starts and sum(misalignment(s, size) == 0 for s in starts) * 2 > len(starts):
        return size  # most names are multiples of the usual size: the others are renamed off it (layout says so)
    if gaps:
        return min(gaps.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return size


def layout_problems(not_files: list[tuple[str, Path]], segments: list[Segment], segment_size: int) -> list[Problem]:
    """What is wrong with the segment files: entries that are no files (with their folder's label), sizes, gaps,
    overlaps."""
    problems = [Problem(f"{directory}/{path.name}", 0, f"{entry_kind(path)} where a segment file should be: "
                        "skipped", "not-a-segment-file") for directory, path in not_files]
    aligned = [misalignment(seg.start_offset, segment_size) == 0 for seg in segments]
    # names off the grid most names are on (a file renamed): said once each, not again as the gap behind them
    on_grid = segment_size > 0 and sum(aligned) * 2 > len(segments)  # once: per file it was quadratic (20,000: 2.6 s)
    off = [on_grid and not a for a in aligned]
    for i, seg in enumerate(segments):
        if not segment_size and seg.file_size > SEGMENT_SIZE.high:
            problems.append(Problem(seg.file, 0, f"segment is {seg.file_size} bytes, more than any segment a broker "
                                    f"maps (mappedFileSizeCommitLog is a Java int: at most {SEGMENT_SIZE.high})",
                                    "wrong-segment-size"))
        if off[i]:
            # MappedFileQueue.findMappedFileByOffset takes a file's index as offset / size - first / size: a
            # name off the grid puts its records where the broker never looks for them
            problems.append(Problem(seg.file, 0, f"named {seg.start_offset}, not a multiple of the segment size "
                                    f"{segment_size}: the broker looks for offsets in the wrong file "
                                    "(MappedFileQueue.findMappedFileByOffset)", "misaligned-segment"))
        if segment_size and seg.file_size == 0:
            # the census's finding for the same file (one code, one verdict: model/verdicts.py)
            # short: a folder of 2,000 empty files prints 2,000 of these rows (the census's fuller text says it once)
            problems.append(Problem(seg.file, 0, "an empty file: the broker's load refuses it and does not start "
                                    "(apache/rocketmq#3257)", "empty-segment"))
        elif segment_size and seg.file_size != segment_size:
            problems.append(Problem(seg.file, 0, f"segment is {seg.file_size} bytes, expected {segment_size}",
                                    "wrong-segment-size"))
        if i and segment_size:
            expected = segments[i - 1].start_offset + segment_size
            if seg.start_offset > expected and off[i - 1]:
                pass  # the gap a misaligned name leaves behind it: that name's finding says it
            elif seg.start_offset > expected:
                missing = (seg.start_offset - expected) // segment_size
                problems.append(
                    Problem(
                        seg.file,
                        0,
                        f"{missing} segment(s) missing before this one: expected {expected:020d}",
                        "missing-segment",
                    )
                )
            elif seg.start_offset < expected:
                problems.append(
                    Problem(seg.file, 0, f"overlaps the previous segment (which ends at {expected})", "overlap")
                )
    return problems
