"""The new offsets file a planned reset writes: the store's own offsets file with the group's planned queues
changed, laid out as the broker's ``ConfigManager.persist`` writes it (``encode(true)``: fastjson's pretty format,
``parsers/fastjson.py`` ``dumps``), ``dataVersion`` moved on as ``DataVersion.nextVersion`` does (counter + 1,
timestamp now). Never the store's file: a new one, beside nothing the broker reads until an operator puts it there.

- ``config/consumerOffset.json``: its ``offsetTable["topic@group"][queue]``; every other field and group as read.
- ``config/lmqConsumerOffset.json`` (``LmqConsumerOffsetManager``): the same, and an LMQ group's offset in
  ``lmqOffsetTable["%LMQ%name@group"]`` (one queue, id 0).
- RocksDB offsets (``config/consumerOffsets/``, ``config/rdb/``): writing a RocksDB database is out of reach here
  (no RocksDB writer); the whole table as read from it is written in the ``consumerOffset.json`` form instead,
  and the result says so (a broker on RocksDB does not read that file as it is).
"""

from __future__ import annotations

import copy
import os
import time
from dataclasses import dataclass
from pathlib import Path

from inspector.engine.model.errors import BadInput, StoreError
from inspector.engine.read.config.offsets import JSON, LMQ_JSON
from inspector.engine.read.groups.reset import OffsetPlan
from parsers.fastjson import dumps


@dataclass(frozen=True)
class OffsetsFile:
    """What was written: ``path``, the form (``consumerOffset.json`` or ``lmqConsumerOffset.json``), how many
    queues' offsets changed, and ``note`` when the form is not the store's own (RocksDB offsets)."""

    path: str
    form: str
    changed: int
    note: str | None = None


def new_offsets_text(store, plan: OffsetPlan, now_ms: int | None = None) -> tuple[str, str, str | None]:
    """(text, form, note): the new offsets file's text for ``plan``."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if plan.source in (JSON, LMQ_JSON):
        name = plan.source.rsplit("/", 1)[1]
        cf = store.config.files.get(name)
        value = copy.deepcopy(cf.value) if cf is not None and isinstance(cf.value, dict) else {}
        note = None
        if cf is not None and cf.used_backup:
            note = f"{name} was unreadable: the new file starts from {cf.file}, which the broker would load"
        form = name
    else:
        note = (f"the store keeps its offsets in RocksDB ({plan.source}), which this tool cannot write: the new "
                "offsets are in the consumerOffset.json form (every group's offsets as read from the database); a "
                "broker with RocksDB offsets does not read that file as it is")
        value = {"offsetTable": {f"{t}@{g}": dict(sorted(qs.items()))
                                 for (t, g), qs in sorted(store.consumer_offsets().table.items())}}
        form = "consumerOffset.json"
    _apply(value, plan)
    version = value.get("dataVersion")
    if isinstance(version, dict):
        counter = version.get("counter")
        version["counter"] = counter + 1 if isinstance(counter, int) else 1
        version["timestamp"] = now
    else:
        value = {"dataVersion": {"counter": 1, "stateVersion": 0, "timestamp": now}, **value}
    return dumps(value), form, note


def _apply(value: dict, plan: OffsetPlan) -> None:
    table = value.setdefault("offsetTable", {})
    lmq = value.get("lmqOffsetTable")
    for q in plan.queues:
        key = f"{q.topic}@{plan.group}"
        if isinstance(lmq, dict) and key in lmq and q.queue_id == 0:
            lmq[key] = q.new
            continue
        queues = table.setdefault(key, {})
        if not isinstance(queues, dict):
            raise StoreError(f"offsetTable[{key!r}] is not an object: the new file cannot be made from it",
                             plan.source)
        queues[q.queue_id] = q.new
        table[key] = dict(sorted(queues.items(), key=lambda kv: (not isinstance(kv[0], int), kv[0])))


def write_offsets_file(store, plan: OffsetPlan, out: str | os.PathLike, *, force: bool = False,
                       now_ms: int | None = None) -> OffsetsFile:
    """Write the new offsets file to ``out`` (never inside the store; an existing file only with ``force``; the
    CLI checks the path before it reads the store, ``formats.check_output``): written beside it under a hidden
    name and moved there when complete, so an error leaves nothing."""
    path = Path(out)
    if os.path.commonpath([os.path.realpath(path), os.path.realpath(store.root)]) == os.path.realpath(store.root):
        raise BadInput(f"{out}: inside the store {store.root}: rmq-inspect never writes into a store")
    text, form, note = new_offsets_text(store, plan, now_ms)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        part.write_text(text, encoding="utf-8")
        if force:
            os.replace(part, path)
        else:
            try:  # a link fails on an existing name: a file made since the check is not replaced
                os.link(part, path)
            except FileExistsError:
                raise BadInput(f"{out}: exists; --force replaces it") from None
    finally:
        if os.path.lexists(part):
            os.unlink(part)
    return OffsetsFile(str(path), form, sum(q.new != q.committed for q in plan.queues), note)

