"""A test-only "broker": writes into a store directory the way a running RocketMQ broker does (spec §2.11, §3-§5).

Run as a script: ``python live_broker_sim.py ROOT LOG COUNT SEED [PAUSE_SCALE]``. It

* takes the POSIX lock on ``ROOT/lock`` and writes ``abort`` (its pid), as ``DefaultMessageStore.start`` does;
* preallocates each commitlog segment at full size (zeros) and copies each record into it through a shared
  mmap in several pieces, front to back, with pauses between them, so a reader sees half-written records;
* writes a BLANK and rolls to a new preallocated segment when a record does not fit (the L + 8 rule);
* writes each consume-queue unit sometimes while its record is still half written, sometimes after, in two
  pieces or as offset, tagsCode, size (the order another process may see the broker's stores in);
* adds index items (item, then slot, then header) for KEYS and UNIQ_KEY after the record is complete;
* updates ``checkpoint`` now and then.

After a record is completely written it appends ``physical_offset size sha256`` to LOG (outside the store),
so a test knows exactly which records were complete at any moment. The last line of LOG is ``done``.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import mmap
import os
import random
import struct
import sys
import time
from pathlib import Path

from inspector.engine.maintain.rebuild.dispatch import dispatch_request, file_name_for_offset
from inspector.engine.maintain.rebuild.index_builder import _IndexFile, index_file_name
from inspector.engine.maintain.write.encode import encode_record
from inspector.engine.model.geometry import Geometry
from parsers.java import index_key

SEGMENT = 32 * 1024
CQ_FILE = 20 * 64  # small consume-queue files: they roll over too
TOPIC = "LiveTopic"
QUEUES = 3
SLOTS, ITEMS = 1024, 4096
BLANK_MAGIC = -875286124


def _prealloc(path: Path, size: int) -> mmap.mmap:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.ftruncate(fd, size)  # a fresh mapped file: zeros
        return mmap.mmap(fd, size)
    finally:
        os.close(fd)


class Broker:
    def __init__(self, root: Path, log: Path, seed: int, pause: float = 1.0):
        self.root = root
        self.pause = pause
        self.rng = random.Random(seed)
        self.log = open(log, "a", buffering=1)  # noqa: SIM115 - line-buffered for the reader
        for sub in ("commitlog", "consumequeue", "index", "config"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        self.lock_fd = os.open(root / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        os.write(self.lock_fd, b"lock")
        fcntl.lockf(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
        (root / "abort").write_text(str(os.getpid()))
        self.checkpoint = _prealloc(root / "checkpoint", 4096)
        self.seg_start = 0
        self.seg = _prealloc(root / "commitlog" / file_name_for_offset(0), SEGMENT)
        self.pos = 0
        self.queue_offsets = [0] * QUEUES
        self.cq_maps: dict[tuple[int, int], mmap.mmap] = {}
        now = int(time.time() * 1000)
        self.index = _IndexFile(root / "index" / index_file_name(now, dt.UTC), SLOTS, ITEMS, 0, 0)

    def _pause(self) -> None:
        time.sleep(self.pause * self.rng.choice((0, 0, 0.0005, 0.002, 0.004)))

    def _roll(self) -> None:
        remaining = SEGMENT - self.pos
        self.seg[self.pos : self.pos + 8] = struct.pack(">ii", remaining, BLANK_MAGIC)
        self.seg.flush()
        self.seg.close()
        self.seg_start += SEGMENT
        self.seg = _prealloc(self.root / "commitlog" / file_name_for_offset(self.seg_start), SEGMENT)
        self.pos = 0

    def _cq_put(self, qid: int, qoff: int, phy: int, size: int, tags: int) -> None:
        byte = qoff * 20
        start = byte - byte % CQ_FILE
        key = (qid, start)
        mm = self.cq_maps.get(key)
        if mm is None:
            d = self.root / "consumequeue" / TOPIC / str(qid)
            d.mkdir(parents=True, exist_ok=True)
            mm = self.cq_maps[key] = _prealloc(d / file_name_for_offset(start), CQ_FILE)
        unit = struct.pack(">qiq", phy, size, tags)
        at = byte - start
        if self.rng.random() < 0.25:
            # offset, tagsCode, then size: the order a reader may see the broker's three stores in (the mapped
            # page gives no order between them; a reader has met a tagsCode before its size)
            mm[at : at + 8] = unit[:8]
            self._pause()
            mm[at + 12 : at + 20] = unit[12:]
            self._pause()
            mm[at + 8 : at + 12] = unit[8:12]
            return
        cut = self.rng.randrange(1, 20)  # a unit is written in two pieces too
        mm[at : at + cut] = unit[:cut]
        self._pause()
        mm[at + cut : at + 20] = unit[cut:]

    def append(self, i: int) -> None:
        qid = self.rng.randrange(QUEUES)
        body = os.urandom(self.rng.choice((0, 5, 40, 300, 1500, 6000)))
        props = {"KEYS": f"key-{i} shared-{i % 7}", "TAGS": f"tag{i % 3}", "UNIQ_KEY": f"{0xC0A8000100002A9F0000:X}{i:012X}"}
        store_ts = int(time.time() * 1000)
        probe = encode_record(topic=TOPIC, body=body, properties=props, physical_offset=0, born_timestamp=store_ts,
                              born_host="10.0.0.9:40000", store_timestamp=store_ts, store_host="10.0.0.1:10911",
                              queue_id=qid)
        if len(probe) + 8 > SEGMENT - self.pos:
            self._roll()
        phy = self.seg_start + self.pos
        qoff = self.queue_offsets[qid]
        self.queue_offsets[qid] += 1
        record = encode_record(topic=TOPIC, body=body, properties=props, physical_offset=phy, born_timestamp=store_ts,
                               born_host="10.0.0.9:40000", store_timestamp=store_ts, store_host="10.0.0.1:10911",
                               queue_id=qid, queue_offset=qoff)
        request = dispatch_request(TOPIC, qid, phy, len(record), store_ts, qoff, 0, 0, props, Geometry())
        # pieces, front to back (a memcpy into the mapped segment), the cut points random: some inside the header
        cuts = sorted(self.rng.sample(range(1, len(record)), k=min(3, len(record) - 1)))
        early_cq = self.rng.random() < 0.3
        done = 0
        for n, cut in enumerate([*cuts, len(record)]):
            self.seg[self.pos + done : self.pos + cut] = record[done:cut]
            done = cut
            if early_cq and n == 0 and done >= 8:  # the queue runs ahead of the log
                self._cq_put(qid, qoff, phy, len(record), request.tags_code)
                early_cq = False
            self._pause()
        self.pos += len(record)
        self.log.write(f"{phy} {len(record)} {hashlib.sha256(record).hexdigest()}\n")
        if self.cq_missing(qid, qoff):
            self._cq_put(qid, qoff, phy, len(record), request.tags_code)  # the usual order: after the record
        for key in (props["UNIQ_KEY"], *props["KEYS"].split(" ")):
            self.index.put_key(index_key(TOPIC, key), phy, store_ts)
            assert self.index.mm is not None
            self.index.mm[0:40] = self.index.header_bytes()  # the header follows each put, as the broker's does
        if i % 10 == 0:
            self.checkpoint[0:16] = struct.pack(">qq", store_ts, store_ts)

    def cq_missing(self, qid: int, qoff: int) -> bool:
        byte = qoff * 20
        mm = self.cq_maps.get((qid, byte - byte % CQ_FILE))
        return mm is None or mm[byte % CQ_FILE + 8 : byte % CQ_FILE + 12] == bytes(4)


def main(argv: list[str]) -> int:
    root, log, count, seed = Path(argv[0]), Path(argv[1]), int(argv[2]), int(argv[3])
    broker = Broker(root, log, seed, float(argv[4]) if len(argv) > 4 else 1.0)
    for i in range(count):
        broker.append(i)
    broker.log.write("done\n")
    # stay "running" (lock held, abort present) until the parent stops us
    while True:
        time.sleep(0.1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
