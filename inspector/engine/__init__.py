"""The engine's one public face: every name the front ends (CLI, TUI, web, Spark) may import, and nothing else.

Inside, the engine is five rooms, each a subpackage whose name says its job::

    model/     the vocabulary every room shares: frozen records, errors, budgets, store geometry
    scan/      fast paths over commitlog bytes (struct decode, numpy/numba bulk kernels), checked against parsers
    read/      a store opened read-only over mmap and everything read from it; never writes
    maintain/  the only room that writes: writer, dispatch, rebuild, staging, verify
    workshop/  teaching: tour, exercises, the index-building stepper, Kaitai/ImHex templates

Front ends write ``from inspector.engine import Store, verify`` and never import a room's module or a parser
(tests/test_import_layers.py holds that). Names load lazily (PEP 562), so ``rmq-inspect info`` does not
import the writer, the tour or the numba kernels just because they are part of the face.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# module (relative to this package) -> the public names it gives the front ends
_FACE: dict[str, tuple[str, ...]] = {
    "model.budget": ('Budget',),
    "model.errors": ('BadInput', 'NotFound', 'StoreError'),
    "model.geometry": ('Geometry', 'parse_delay_levels', 'store_geometry'),
    "model.records": ('Blank', 'ChainStep', 'ChainWalk', 'CheckpointInfo', 'fmt_time', 'Host', 'IdReading', 'IndexFileInfo', 'Message', 'Problem', 'QueueInfo', 'Segment'),
    "scan.batch": ('MessageBatch',),
    "scan.crc": ('rocketmq_crc32',),
    "scan.record_layout": ('CHECK_BODY_CRC',),
    "read.body": ('decompress_body',),
    "read.commitlog": ('Entry', 'SegmentScan'),
    "read.follow": ('follow',),
    "read.indexfile": ('IndexFileReader',),
    "read.layout": ('FieldSpan', 'Region', 'regions'),
    "read.mapped": ('is_all_zero',),
    "read.overview": ('id_overview', 'store_overview'),
    "read.recovery": ('NOT_FATAL', 'Recovery', 'recovery_start'),
    "read.slots": ('busiest_slots', 'slot_occupancy', 'walk_slot'),
    "read.store": ('decode_id', 'MAX_TIME', 'Store'),
    "read.views": ('chain_view', 'has_undecodable', 'index_file_view', 'key_hit_view', 'message_view', 'printable', 'problem_view', 'queue_view'),
    "maintain.dispatch": ('check_path_component', 'ConsumeQueueBuilder', 'dispatch_request', 'DispatchRequest'),
    "maintain.rebuild": ('rebuild', 'rebuild_in_place'),
    "maintain.staging": ('check_new_target', 'clear_stale_staging', 'crash_point', 'publish', 'staging_dir_for'),
    "maintain.verify": ('check_checkpoint', 'check_consumer_offsets', 'check_index', 'check_queue', 'crc_property_problems', 'verify'),
    "maintain.writer": ('MessageSpec', 'StoreWriter'),
    "workshop.exercises": ('exercise_view', 'generate', 'result_view'),
    "workshop.teaching": ('build_steps', 'DEFAULT_HASHES', 'DEFAULT_SLOTS', 'lookup'),
    "workshop.templates": ('write_templates',),
    "workshop.tour": ('cursor_offset', 'NOT_COMPUTED', 'step_view', 'tour_steps'),
}
_HOME = {name: module for module, names in _FACE.items() for name in names}
__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'inspector.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"inspector.engine.{module}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # what static checkers and IDEs see; generated from _FACE by hand, kept equal by a test
    from inspector.engine.maintain.dispatch import (
        ConsumeQueueBuilder,
        DispatchRequest,
        check_path_component,
        dispatch_request,
    )
    from inspector.engine.maintain.rebuild import rebuild, rebuild_in_place
    from inspector.engine.maintain.staging import (
        check_new_target,
        clear_stale_staging,
        crash_point,
        publish,
        staging_dir_for,
    )
    from inspector.engine.maintain.verify import (
        check_checkpoint,
        check_consumer_offsets,
        check_index,
        check_queue,
        crc_property_problems,
        verify,
    )
    from inspector.engine.maintain.writer import MessageSpec, StoreWriter
    from inspector.engine.model.budget import Budget
    from inspector.engine.model.errors import BadInput, NotFound, StoreError
    from inspector.engine.model.geometry import Geometry, parse_delay_levels, store_geometry
    from inspector.engine.model.records import (
        Blank,
        ChainStep,
        ChainWalk,
        CheckpointInfo,
        Host,
        IdReading,
        IndexFileInfo,
        Message,
        Problem,
        QueueInfo,
        Segment,
        fmt_time,
    )
    from inspector.engine.read.body import decompress_body
    from inspector.engine.read.commitlog import Entry, SegmentScan
    from inspector.engine.read.follow import follow
    from inspector.engine.read.indexfile import IndexFileReader
    from inspector.engine.read.layout import FieldSpan, Region, regions
    from inspector.engine.read.mapped import is_all_zero
    from inspector.engine.read.overview import id_overview, store_overview
    from inspector.engine.read.recovery import NOT_FATAL, Recovery, recovery_start
    from inspector.engine.read.slots import busiest_slots, slot_occupancy, walk_slot
    from inspector.engine.read.store import MAX_TIME, Store, decode_id
    from inspector.engine.read.views import (
        chain_view,
        has_undecodable,
        index_file_view,
        key_hit_view,
        message_view,
        printable,
        problem_view,
        queue_view,
    )
    from inspector.engine.scan.batch import MessageBatch
    from inspector.engine.scan.crc import rocketmq_crc32
    from inspector.engine.scan.record_layout import CHECK_BODY_CRC
    from inspector.engine.workshop.exercises import exercise_view, generate, result_view
    from inspector.engine.workshop.teaching import DEFAULT_HASHES, DEFAULT_SLOTS, build_steps, lookup
    from inspector.engine.workshop.templates import write_templates
    from inspector.engine.workshop.tour import NOT_COMPUTED, cursor_offset, step_view, tour_steps
