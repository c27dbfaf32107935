"""Each segment of a commitlog walked once, and the end of its last good record (what recovery would set)."""

from __future__ import annotations

from inspector.engine.read.commitlog.commitlog import CommitLog, SegmentScan


class LogScans:
    """The walks of ``log``'s segments, each made on first use and kept (the overview, the key lookups past
    untrusted index files and the timer store all ask for the log's end)."""

    def __init__(self, log: CommitLog):
        self.log = log
        self._scans: dict[int, SegmentScan] = {}

    def scan_segment(self, index: int) -> SegmentScan:
        """Walk segment ``index`` once (cached)."""
        if index not in self._scans:
            self._scans[index] = self.log.scan_segment(self.log.segments[index])
        return self._scans[index]

    def scans(self) -> list[SegmentScan]:
        return [self.scan_segment(i) for i in range(len(self.log.segments))]

    def max_offset(self) -> int:
        """End of the last good record of the log (what RocketMQ's recovery would set as the write position)."""
        last = 0
        for scan in self.scans():
            if scan.messages or scan.blank_position is not None:
                last = scan.valid_end_offset
        return last or self.log.min_offset
