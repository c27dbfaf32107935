"""A new store from JSON Lines messages, crash-safe: what ``rmq-inspect write`` does, front end aside.

:func:`write_store` refuses a target that holds anything, clears the staging a killed run left, writes every
message through :class:`~inspector.engine.maintain.write.writer.StoreWriter` into a staging directory next to the
target, then fsyncs it and renames it into place (:mod:`~inspector.engine.maintain.write.staging`), so a crash at
any moment leaves either no store or the complete one. Here, beside ``rebuild``, because staging and rollback
are the maintain room's job; the CLI only parses arguments and prints.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path

from inspector.engine.maintain.write.dledger_log import DLedgerOptions
from inspector.engine.maintain.write.messagespec import AppendResult, MessageSpec, parse_message_line
from inspector.engine.maintain.write.recordspec import RecordSpec
from inspector.engine.maintain.write.sendback import CopySpec
from inspector.engine.maintain.write.staging import (
    check_new_target,
    clear_stale_staging,
    crash_point,
    publish,
    staging_dir_for,
)
from inspector.engine.maintain.write.writer import StoreWriter
from inspector.engine.model.errors import BadInput
from inspector.engine.model.files import UnfitFile
from inspector.engine.model.geometry import Geometry

__all__ = ["write_store"]


def write_store(
    target: Path,
    messages: Callable[[], AbstractContextManager[Iterable[str | bytes]]],
    geometry: Geometry,
    *,
    store_host: str,
    producer_ip: str,
    consumer_offsets: Mapping[tuple[str, str], Mapping[int, int]],
    source: str = "<stdin>",
    topic_attributes: Mapping[str, Mapping[str, str]] | None = None,
    timer_options: Mapping[str, int | None] | None = None,
    dledger: DLedgerOptions | None = None,
    keep_offsets: bool = False,
) -> list[AppendResult]:
    """Write JSON Lines messages (one :meth:`MessageSpec.from_json` object a line, or a stored record as
    ``messages --json`` prints it, :class:`RecordSpec`; blank lines skipped) as a new store at ``target``; the
    results of every ``append``, in order. ``keep_offsets``: each record line keeps its physical and queue
    offsets (refused where it cannot, :meth:`StoreWriter.append_stored`).

    ``messages`` opens the input: a callable returning a context manager that gives its lines (an open text
    file does, and :func:`~inspector.engine.maintain.write.messagespec.message_lines`: bounded bytes lines of a
    regular file or a stream, decoded here as UTF-8), called once ``target`` has been checked, so a refused
    target never opens the input.
    ``target`` must be absent or an empty directory. ``source`` names the input in errors (a line that is not
    JSON or not a valid message is a :class:`BadInput` with its line number). ``topic_attributes``: each
    topic's ``topics.json`` attributes (``{"queue.type": "BatchCQ"}`` makes a batch topic, see StoreWriter).
    ``timer_options``: StoreWriter's ``timer_now``, ``timer_precision_ms``, ``timer_file_size``.
    ``dledger``: write a DLedger store instead of a plain commitlog (see StoreWriter).
    On any error the staging directory is removed and ``target`` is left as it was.
    """
    check_new_target(target, "store directory")
    target.parent.mkdir(parents=True, exist_ok=True)
    clear_stale_staging(target)
    staging = staging_dir_for(target)  # built next to the target, renamed into place when complete
    opened = messages()  # opened only now: every check above may refuse without leaving the input open
    try:
        with opened as lines:
            results = _write_messages(lines, staging, geometry, store_host, producer_ip, consumer_offsets, source,
                                      topic_attributes, timer_options, dledger, keep_offsets)
        publish(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return results


def _write_messages(
    messages: Iterable[str | bytes],
    staging: Path,
    geometry: Geometry,
    store_host: str,
    producer_ip: str,
    consumer_offsets: Mapping[tuple[str, str], Mapping[int, int]],
    source: str,
    topic_attributes: Mapping[str, Mapping[str, str]] | None = None,
    timer_options: Mapping[str, int | None] | None = None,
    dledger: DLedgerOptions | None = None,
    keep_offsets: bool = False,
) -> list[AppendResult]:
    results = []
    with StoreWriter(staging, geometry, store_host=store_host, producer_ip=producer_ip,
                     consumer_offsets=consumer_offsets, topic_attributes=topic_attributes, dledger=dledger,
                     **{k: v for k, v in (timer_options or {}).items() if v is not None}) as writer:
        index_of: dict[str, int] = {}  # each UNIQ_KEY's latest record, for a copy that names it (CopySpec)
        for n, line in _numbered(messages, source):
            if not line.strip():
                continue
            try:
                obj = parse_message_line(line)
                record = RecordSpec.from_json(obj)
                copy = None if record is not None else CopySpec.from_json(obj)
                spec = None if record is not None or copy is not None else MessageSpec.from_json(obj)
                if keep_offsets and record is None:
                    raise BadInput("--keep-offsets keeps a stored record's offsets: this line is a message to "
                                   "send (no physical_offset); give the lines `messages --json` prints")
                if record is not None:
                    results.append(writer.append_stored(record, keep_offsets=keep_offsets))
                elif copy is not None:
                    results.append(copy.write(writer, index_of))
                elif spec.transaction == "commit":
                    results.append(writer.commit(spec.half_ref, store_timestamp=spec.store_timestamp))
                elif spec.transaction == "rollback":
                    results.append(writer.rollback(spec.half_ref, store_timestamp=spec.store_timestamp))
                else:
                    results.append(writer.append(spec))
            except BadInput as e:
                raise BadInput(f"line {n}: {e.reason}", source) from None
            if results[-1].unique_key:
                index_of[results[-1].unique_key] = results[-1].index
            crash_point("record")
    return results


def _numbered(lines: Iterable[str | bytes], source: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of the input: bytes lines (``message_lines``) decoded as UTF-8, a line the bounded
    reader refused (too long) or that is no UTF-8 a ``BadInput`` naming ``source`` and the line."""
    it = iter(lines)
    n = 0
    while True:
        try:
            line = next(it)
        except StopIteration:
            return
        except UnfitFile as e:  # bounded_lines: "line N: longer than ..."
            raise BadInput(e.strerror, source) from None
        n += 1
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise BadInput(f"line {n}: not UTF-8 (byte 0x{line[e.start]:02x} at column {e.start + 1})",
                               source) from None
        yield n, line
