"""The engine's one public face: every name the front ends (CLI, TUI, web, Spark) may import, and nothing else.

Inside, the engine is six rooms, each a subpackage whose name says its job (a room imports only those above it
in this list; tests/test_import_layers.py holds that)::

    model/     the vocabulary every room shares: frozen records, errors, budgets, store geometry
    scan/      fast paths over commitlog bytes (struct decode, numpy/numba bulk kernels), checked against parsers
    read/      a store opened read-only over mmap, one subroom per format: commitlog/ queues/ index/ dledger/
               timer/ config/ store/; never writes
    present/   answers shaped for the front ends from what read/ gives: JSON views, overview, hex layout, survey
    maintain/  the only room that writes, one subroom per job: write/ rebuild/ (dispatch and rebuild) verify/
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
    "model.arguments": ('ArgumentKind', 'COUNT', 'CQ_FILE_SIZE', 'EXERCISE_COUNT', 'INDEX_ITEMS',
        'INDEX_SLOT', 'INDEX_SLOTS', 'integer_kind', 'LENGTH', 'LIMIT', 'OFFSET', 'parse_integer', 'PORT',
        'QUEUE_ID', 'QUEUE_OFFSET', 'SEGMENT_SIZE', 'START', 'TIME_MS', 'TIMER_SLOT', 'TIMER_START',
        'PRE_DLEDGER', 'DLEDGER_INDEX_FILE_SIZE', 'IDLE_TIMEOUT', 'SecondsKind'),
    "model.broker_config": ('BrokerConfig', 'load_broker_config', 'parse_broker_config'),
    "model.budget": ('Budget',),
    "model.crc": ('rocketmq_crc32',),
    "model.errors": ('BadInput', 'EXIT_BAD_INPUT', 'EXIT_NOT_FOUND', 'EXIT_STORE_ERROR', 'exit_code', 'NotFound',
        'StoreError'),
    "model.files": ('open_regular', 'read_json', 'read_regular', 'UnfitFile'),
    "model.geometry": ('Geometry', 'parse_delay_levels', 'store_geometry'),
    "model.meaning": ('compression_name', 'is_compressed', 'keys_of', 'magic_version', 'NAME_VALUE_SEPARATOR',
        'offset_msg_id', 'offset_msg_id_prefix', 'offset_msg_id_suffix', 'properties_map',
        'PROPERTY_SEPARATOR', 'SYS_FLAG_PART_NAMES', 'sys_flag_parts', 'tags_of', 'transaction_name',
        'unique_key_of'),
    "model.multidispatch": ('is_lmq',),
    "model.terminal_text": ('has_terminal_controls', 'terminal_text'),
    "model.records": ('BatchUnit', 'Blank', 'ChainStep', 'ChainWalk', 'CheckpointInfo', 'fmt_time', 'Host',
        'IdReading', 'IndexFileInfo', 'InnerMessage', 'Message', 'MoreAfterLimit', 'Problem', 'QueueInfo',
        'Segment'),
    "scan.batch": ('MessageBatch',),
    "scan.record_layout": ('CHECK_BODY_CRC',),
    "read.queues.batchconsumequeue": ('BatchConsumeQueue', 'inner_messages', 'is_inner_batch'),
    "read.commitlog.body": ('BODY_VIEWS', 'body_line', 'body_preview', 'BodyPreview', 'decompress_body', 'HexRow'),
    "read.store.census": ('Census', 'census', 'census_summary', 'census_view', 'KindCount'),
    "read.commitlog.commitlog": ('Entry', 'SegmentScan'),
    "read.dledger.dledger": ('dledger_view',),
    "read.commitlog.follow": ('follow',),
    "read.index.indexfile": ('IndexFileReader',),
    "read.index.keys": ('indexed_key', 'IndexedKey', 'item_key_text'),
    "present.layout": ('FieldSpan', 'Region', 'regions'),
    "read.store.load_checks": ('store_load_problems',),
    "read.commitlog.mapped": ('is_all_zero',),
    "present.overview": ('approximate_unique_key_time', 'id_overview', 'resolve_message_id', 'store_overview',
        'unique_key_time'),
    "read.store.recovery": ('NOT_FATAL', 'Recovery', 'recovery_start'),
    "read.store.retention": ('expired_id_reason', 'expired_key_reason'),
    "read.index.slots": ('busiest_slots', 'slot_occupancy', 'walk_slot'),
    "read.config.settings": ('DelayTable', 'Setting'),
    "read.store.store": ('decode_id', 'MAX_TIME', 'Store'),
    "read.config.storeroot": ('check_store_root', 'not_a_store'),
    "read.store.opening": ('open_store', 'read_broker_config', 'store_config',
        'store_input_problem'),
    "present.survey": ('StoreSurvey', 'survey_of', 'SurveyState'),
    "read.timer.timerlinks": ('open_timer', 'TimerStore'),
    "present.timerviews": ('ms_date', 'timer_chain_view', 'timer_line', 'timer_slot_view', 'timer_slot_views', 'timer_summary',
        'timer_unit_chunks', 'timer_unit_lines', 'timer_unit_view'),
    "present.message_shape": ('MESSAGE_FIELDS', 'message_fields', 'MessageField', 'SYS_FLAG_PART_KINDS'),
    "present.views": ('chain_view', 'has_undecodable', 'index_file_view', 'key_hit_view', 'message_view',
        'printable', 'problem_view', 'queue_view', 'region_view'),
    "present.views_bulk": ('json_line', 'json_lines', 'json_text', 'message_line', 'record_line'),
    "maintain.rebuild.bcq_builder": ('BatchConsumeQueueBuilder',),
    "maintain.rebuild.cq_builder": ('ConsumeQueueBuilder',),
    "maintain.rebuild.dispatch": ('check_path_component', 'dispatch_request', 'DispatchRequest', 'lmq_requests'),
    "maintain.write.dledger_log": ('DLedgerOptions',),
    "maintain.write.dledger_stream": ('MatchedEntries',),
    "maintain.write.messagespec": ('message_lines',),
    "maintain.write.newstore": ('write_store',),
    "maintain.rebuild.rebuild": ('rebuild', 'rebuild_in_place'),
    "maintain.verify.verify": ('check_checkpoint', 'check_consumer_offsets', 'crc_property_problems',
        'record_problems', 'verify'),
    "maintain.verify.batch_queues": ('check_batch_queue',),
    "maintain.verify.coverage": ('QueueCoverage', 'queue_ends'),
    "maintain.verify.dledger": ('check_dledger', 'dledger_segment_heads'),
    "maintain.verify.index": ('check_index',),
    "maintain.verify.lmq": ('segment_lmq_problems',),
    "maintain.verify.queues": ('check_queue',),
    "maintain.verify.timer": ('check_timer',),
    "workshop.exercise_model": ('exercise_view', 'result_view'),
    "workshop.exercises": ('generate',),
    "workshop.teaching": ('build_steps', 'DEFAULT_HASHES', 'DEFAULT_SLOTS', 'lookup'),
    "workshop.templates": ('write_templates',),
    "workshop.tour_steps": ('NOT_COMPUTED', 'tour_steps'),
    "workshop.tour_targets": ('cursor_offset', 'step_view'),
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
    from inspector.engine.maintain.rebuild.bcq_builder import BatchConsumeQueueBuilder
    from inspector.engine.maintain.rebuild.cq_builder import ConsumeQueueBuilder
    from inspector.engine.maintain.rebuild.dispatch import (
        DispatchRequest,
        check_path_component,
        dispatch_request,
        lmq_requests,
    )
    from inspector.engine.maintain.rebuild.rebuild import rebuild, rebuild_in_place
    from inspector.engine.maintain.verify.batch_queues import check_batch_queue
    from inspector.engine.maintain.verify.coverage import QueueCoverage, queue_ends
    from inspector.engine.maintain.verify.dledger import check_dledger, dledger_segment_heads
    from inspector.engine.maintain.verify.index import check_index
    from inspector.engine.maintain.verify.lmq import segment_lmq_problems
    from inspector.engine.maintain.verify.queues import check_queue
    from inspector.engine.maintain.verify.timer import check_timer
    from inspector.engine.maintain.verify.verify import (
        check_checkpoint,
        check_consumer_offsets,
        crc_property_problems,
        record_problems,
        verify,
    )
    from inspector.engine.maintain.write.dledger_log import DLedgerOptions
    from inspector.engine.maintain.write.dledger_stream import MatchedEntries
    from inspector.engine.maintain.write.messagespec import message_lines
    from inspector.engine.maintain.write.newstore import write_store
    from inspector.engine.model.arguments import (
        COUNT,
        CQ_FILE_SIZE,
        DLEDGER_INDEX_FILE_SIZE,
        EXERCISE_COUNT,
        IDLE_TIMEOUT,
        INDEX_ITEMS,
        INDEX_SLOT,
        INDEX_SLOTS,
        LENGTH,
        LIMIT,
        OFFSET,
        PORT,
        PRE_DLEDGER,
        QUEUE_ID,
        QUEUE_OFFSET,
        SEGMENT_SIZE,
        START,
        TIME_MS,
        TIMER_SLOT,
        TIMER_START,
        ArgumentKind,
        SecondsKind,
        integer_kind,
        parse_integer,
    )
    from inspector.engine.model.broker_config import BrokerConfig, load_broker_config, parse_broker_config
    from inspector.engine.model.budget import Budget
    from inspector.engine.model.crc import rocketmq_crc32
    from inspector.engine.model.errors import (
        EXIT_BAD_INPUT,
        EXIT_NOT_FOUND,
        EXIT_STORE_ERROR,
        BadInput,
        NotFound,
        StoreError,
        exit_code,
    )
    from inspector.engine.model.files import UnfitFile, open_regular, read_json, read_regular
    from inspector.engine.model.geometry import Geometry, parse_delay_levels, store_geometry
    from inspector.engine.model.meaning import (
        NAME_VALUE_SEPARATOR,
        PROPERTY_SEPARATOR,
        SYS_FLAG_PART_NAMES,
        compression_name,
        is_compressed,
        keys_of,
        magic_version,
        offset_msg_id,
        offset_msg_id_prefix,
        offset_msg_id_suffix,
        properties_map,
        sys_flag_parts,
        tags_of,
        transaction_name,
        unique_key_of,
    )
    from inspector.engine.model.multidispatch import is_lmq
    from inspector.engine.model.records import (
        BatchUnit,
        Blank,
        ChainStep,
        ChainWalk,
        CheckpointInfo,
        Host,
        IdReading,
        IndexFileInfo,
        InnerMessage,
        Message,
        MoreAfterLimit,
        Problem,
        QueueInfo,
        Segment,
        fmt_time,
    )
    from inspector.engine.model.terminal_text import has_terminal_controls, terminal_text
    from inspector.engine.present.layout import FieldSpan, Region, regions
    from inspector.engine.present.message_shape import (
        MESSAGE_FIELDS,
        SYS_FLAG_PART_KINDS,
        MessageField,
        message_fields,
    )
    from inspector.engine.present.overview import (
        approximate_unique_key_time,
        id_overview,
        resolve_message_id,
        store_overview,
        unique_key_time,
    )
    from inspector.engine.present.survey import StoreSurvey, SurveyState, survey_of
    from inspector.engine.present.timerviews import (
        ms_date,
        timer_chain_view,
        timer_line,
        timer_slot_view,
        timer_slot_views,
        timer_summary,
        timer_unit_chunks,
        timer_unit_lines,
        timer_unit_view,
    )
    from inspector.engine.present.views import (
        chain_view,
        has_undecodable,
        index_file_view,
        key_hit_view,
        message_view,
        printable,
        problem_view,
        queue_view,
        region_view,
    )
    from inspector.engine.present.views_bulk import (
        json_line,
        json_lines,
        json_text,
        message_line,
        record_line,
    )
    from inspector.engine.read.commitlog.body import (
        BODY_VIEWS,
        BodyPreview,
        HexRow,
        body_line,
        body_preview,
        decompress_body,
    )
    from inspector.engine.read.commitlog.commitlog import Entry, SegmentScan
    from inspector.engine.read.commitlog.follow import follow
    from inspector.engine.read.commitlog.mapped import is_all_zero
    from inspector.engine.read.config.settings import DelayTable, Setting
    from inspector.engine.read.config.storeroot import check_store_root, not_a_store
    from inspector.engine.read.dledger.dledger import dledger_view
    from inspector.engine.read.index.indexfile import IndexFileReader
    from inspector.engine.read.index.keys import IndexedKey, indexed_key, item_key_text
    from inspector.engine.read.index.slots import busiest_slots, slot_occupancy, walk_slot
    from inspector.engine.read.queues.batchconsumequeue import (
        BatchConsumeQueue,
        inner_messages,
        is_inner_batch,
    )
    from inspector.engine.read.store.census import Census, KindCount, census, census_summary, census_view
    from inspector.engine.read.store.load_checks import store_load_problems
    from inspector.engine.read.store.opening import (
        open_store,
        read_broker_config,
        store_config,
        store_input_problem,
    )
    from inspector.engine.read.store.recovery import NOT_FATAL, Recovery, recovery_start
    from inspector.engine.read.store.retention import expired_id_reason, expired_key_reason
    from inspector.engine.read.store.store import MAX_TIME, Store, decode_id
    from inspector.engine.read.timer.timerlinks import TimerStore, open_timer
    from inspector.engine.scan.batch import MessageBatch
    from inspector.engine.scan.record_layout import CHECK_BODY_CRC
    from inspector.engine.workshop.exercise_model import exercise_view, result_view
    from inspector.engine.workshop.exercises import generate
    from inspector.engine.workshop.teaching import DEFAULT_HASHES, DEFAULT_SLOTS, build_steps, lookup
    from inspector.engine.workshop.templates import write_templates
    from inspector.engine.workshop.tour_steps import NOT_COMPUTED, tour_steps
    from inspector.engine.workshop.tour_targets import cursor_offset, step_view
