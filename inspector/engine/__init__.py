"""The engine's one public face: every name the front ends (CLI, TUI, web, Spark) may import, by question.

Open a store from what the user typed, with its settings: open_store, store_config, read_broker_config,
    store_input_problem, Store, not_a_store, check_store_root, load_broker_config, BrokerConfig, store_geometry,
    Geometry, parse_delay_levels, DelayTable, Setting, census, census_summary, census_view
What is in it (the overview's facts): store_overview, survey_of, segment_size, dledger_view, checkpoint_future_note,
    timer_line, timer_summary, CheckpointInfo, QueueInfo, IndexFileInfo, Segment, SegmentScan, Recovery,
    recovery_start, NOT_FATAL, MAX_TIME
Messages in an order, with the problems that precede them: log_order, follow_log, segment_batches, segment_entries,
    segment_at, MessageBatch, Entry, Message, Blank, Problem, MoreAfterLimit, inner_messages, is_inner_batch,
    InnerMessage, BatchConsumeQueue, BatchUnit; a page back in commitlog order: page_before
One message, its body and its meaning: message_view, body_preview, body_line, BodyPreview, decompress_body,
    properties_map, keys_of, tags_of, unique_key_of, sys_flag_parts, magic_version, compression_name,
    transaction_name, is_lmq, Host, fmt_time, short_time, window_text; --utc: set_utc, is_utc, zone_label
An id or key resolved: resolve_message_id, id_overview, unique_key_time, IdReading, offset_msg_id_prefix,
    offset_msg_id_suffix, expired_id_reason, expired_key_reason, expired_start_note, key_missing_reason,
    indexed_key, item_key_text, key_hit_view, chain_view, ChainWalk, ChainStep, unindexed_view, Uncovered,
    IndexSpan, IndexFileReader, busiest_slots, slot_occupancy, walk_slot, index_file_view, queue_view
Hex: hex_window -> HexWindow, hex_segment, hex_bytes, holds_offset, message_near, Region, FieldSpan, region_view,
    next_message_offset, byte_readings; queue/index files: store_file, file_hex -> FileHex; problem_groups -> ProblemGroup
JSON lines and views shared by CLI, web and Spark (one message shape: MESSAGE_FIELDS, SYS_FLAG_PART_KINDS,
    BODY_FIELDS (a body in base64: b64), DLEDGER_ENTRY_KINDS, DLEDGER_HEADER, dledger_entry, INNER_BATCH_KINDS,
    inner_batch_of): json_lines, json_text, record_line, problem_view, printable, has_undecodable, read_json
Trace records (the trace topic's bodies, client TraceDataEncoder) decoded, one message's trace timeline:
    decode_trace, decode_trace_bytes, is_trace_topic, TraceBody, TraceRecord, TraceOther, TRACE_FIELDS, trace_of,
    trace_topic_of, TraceTimeline, TraceEntry, trace_body_view, trace_record_view, trace_record_pairs,
    trace_timeline_view, trace_rows, TRACE_ROW_FIELDS, TRACE_TOPIC, TRACE_TOPIC_PREFIX; for Spark rows (a config, no
    Store): configured_trace_topic, trace_object_row, TRACE_ROW_KINDS, TRACE_OBJECT_KINDS
One message's story: story_of -> Story, StoryRecord, GroupProgress, STORY_ROLES, story_view, story_record_view,
    group_progress_view, UNINDEXED_SCAN_BYTES (the log no index covers one bounded request scans)
Consumer groups (offsets from every source, lag, either side): groups_of, group_of, committed_offsets, GroupView,
    GroupSummary, GroupQueue, QueueMessage, TopicCount, DEFAULT_PENDING, groups_view, group_view, queue_message_view
    (offsets plan: plan_offsets -> OffsetPlan, PlannedQueue, offset_plan_view; write_offsets_file -> OffsetsFile)
The timer store: open_timer, timer_chain_view, timer_slot_views, timer_unit_chunks, timer_unit_view
Verify, whole or as tasks (Spark: one per segment, queue and index file, then merged): verify, verify_layout,
    verify_segment -> SegmentVerdict, queue_ends, verify_queue, verify_index_file, verify_after_queues, verify_dledger,
    verify_rest; salvage_plan -> SalvagePlan (Span, FileStep), salvage -> SalvageResult (salvage a damaged store)
Search (grep): grep -> GrepHit, GrepEnd; compile_pattern -> SearchPattern; SEARCH_FIELDS, parse_fields, hit_context,
    grep_hit_view, grep_end_view, unknown_topic_note, topic_suggestions; a store-time window (--since/--until):
    STORE_TIME, check_window, log_window -> LogWindow, queue_window, in_window; a step by store time (TUI keys):
    time_step -> TimeStep (TimeStop), record_at_time, time_step_note, stamp. Statistics: store_stats -> StoreStats
    (Counts by BY, SIZE_LABELS, RetentionStep), stats_view. The next broker start: preflight
Rebuild, whole or as tasks (Spark: per segment, then per queue): rebuild, rebuild_in_place, dispatch_record ->
    QueueUnit, QueueWrite; write: write_store, message_lines, DLedgerOptions; diff: store_diff, StoreDiff, diff_view
Teach (workshop): tour_steps, step_view, cursor_offset, NOT_COMPUTED, build_steps, lookup, key_hash_steps,
    DEFAULT_HASHES, DEFAULT_SLOTS, generate, exercise_view, result_view, write_templates
Shared vocabulary: BadInput, NotFound, StoreError (exit codes 2, 1, 3: exit_code, EXIT_BAD_INPUT, EXIT_NOT_FOUND,
    EXIT_STORE_ERROR); terminal_text, has_terminal_controls (every store text on a terminal); Budget;
    rocketmq_crc32; CHECK_BODY_CRC; NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR; the argument kinds (ArgumentKind,
    SecondsKind, StoreTimeKind, integer_kind, parse_integer, OFFSET, LIMIT, ... in model/arguments.py)
"""

# The declaration is the ``TYPE_CHECKING`` imports at the end of this file (what checkers see); ``_FACE`` is read
# from them and names load lazily (PEP 562), so ``rmq-inspect info`` does not import the writer, the tour or the
# numba kernels. Inside, six rooms (model, scan, read, present, maintain, workshop; the README's Architecture);
# front ends never import a room's module or a parser (tests/test_import_layers.py holds that and this list).

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any


def _declared() -> dict[str, tuple[str, ...]]:
    """module (relative to this package) -> the names it gives the front ends, read once from this file's
    ``TYPE_CHECKING`` imports at its end: they are the face's one declaration (what checkers see is what
    ``__getattr__`` loads). Parsing that block costs a few milliseconds and imports nothing of the engine."""
    import ast

    text = __loader__.get_source(__name__)  # through the loader: Spark's executors import the project from a zip
    block = ast.parse(text[text.index("\nif TYPE_CHECKING:") + 1:]).body[0]
    return {node.module.removeprefix(f"{__name__}."): tuple(a.name for a in node.names)
            for node in block.body if isinstance(node, ast.ImportFrom) and node.module}


_FACE = _declared()
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


if TYPE_CHECKING:  # the face's one declaration: checkers read it, _declared() reads it for __getattr__
    from inspector.engine.maintain.offsets.offsetsfile import OffsetsFile, write_offsets_file
    from inspector.engine.maintain.rebuild.rebuild import rebuild, rebuild_in_place
    from inspector.engine.maintain.rebuild.tasks import QueueUnit, QueueWrite, dispatch_record
    from inspector.engine.maintain.salvage.plan import FileStep, SalvagePlan, Span, salvage_plan
    from inspector.engine.maintain.salvage.writeout import SalvageResult, salvage
    from inspector.engine.maintain.verify.coverage import queue_ends
    from inspector.engine.maintain.verify.preflight import preflight
    from inspector.engine.maintain.verify.problem_groups import ProblemGroup, problem_groups
    from inspector.engine.maintain.verify.tasks import (
        SegmentVerdict,
        verify_after_queues,
        verify_dledger,
        verify_index_file,
        verify_layout,
        verify_queue,
        verify_rest,
        verify_segment,
    )
    from inspector.engine.maintain.verify.verify import verify
    from inspector.engine.maintain.write.dledger_log import DLedgerOptions
    from inspector.engine.maintain.write.messagespec import message_lines
    from inspector.engine.maintain.write.newstore import write_store
    from inspector.engine.model.arguments import (
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
        SCAN_BUDGET,
        SEGMENT_SIZE,
        START,
        STORE_TIME,
        TIME_MS,
        TIMER_SLOT,
        TIMER_START,
        ArgumentKind,
        SecondsKind,
        StoreTimeKind,
        check_window,
        integer_kind,
        parse_integer,
    )
    from inspector.engine.model.broker_config import BrokerConfig, load_broker_config
    from inspector.engine.model.budget import Budget
    from inspector.engine.model.clock import is_utc, set_utc, zone_label
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
    from inspector.engine.model.files import read_json
    from inspector.engine.model.geometry import Geometry, parse_delay_levels
    from inspector.engine.model.meaning import (
        NAME_VALUE_SEPARATOR,
        PROPERTY_SEPARATOR,
        compression_name,
        keys_of,
        magic_version,
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
        b64,
        fmt_time,
        short_time,
        window_text,
    )
    from inspector.engine.model.terminal_text import has_terminal_controls, terminal_text
    from inspector.engine.present.diff import diff_view
    from inspector.engine.present.files.filehex import FileHex, file_hex, store_file
    from inspector.engine.present.grepviews import grep_end_view, grep_hit_view, hit_context
    from inspector.engine.present.groupviews import (
        group_view,
        groups_view,
        offset_plan_view,
        queue_message_view,
    )
    from inspector.engine.present.hexwindow import (
        HexWindow,
        byte_readings,
        hex_bytes,
        hex_segment,
        hex_window,
        holds_offset,
        message_near,
        next_message_offset,
    )
    from inspector.engine.present.layout import FieldSpan, Region
    from inspector.engine.present.log import (
        follow_log,
        log_order,
        segment_at,
        segment_batches,
        segment_entries,
        segment_size,
    )
    from inspector.engine.present.message_shape import (
        BODY_FIELDS,
        DLEDGER_ENTRY_KINDS,
        DLEDGER_HEADER,
        INNER_BATCH_KINDS,
        MESSAGE_FIELDS,
        SYS_FLAG_PART_KINDS,
        dledger_entry,
        inner_batch_of,
    )
    from inspector.engine.present.overview import (
        id_overview,
        resolve_message_id,
        store_overview,
        unique_key_time,
    )
    from inspector.engine.present.storyviews import group_progress_view, story_record_view, story_view
    from inspector.engine.present.survey import survey_of
    from inspector.engine.present.timerviews import (
        timer_chain_view,
        timer_line,
        timer_slot_views,
        timer_summary,
        timer_unit_chunks,
        timer_unit_view,
    )
    from inspector.engine.present.timestepviews import stamp, time_step_note
    from inspector.engine.present.traceviews import (
        TRACE_OBJECT_KINDS,
        TRACE_ROW_FIELDS,
        TRACE_ROW_KINDS,
        trace_body_view,
        trace_object_row,
        trace_record_pairs,
        trace_record_view,
        trace_rows,
        trace_timeline_view,
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
        unindexed_view,
    )
    from inspector.engine.present.views_bulk import json_lines, json_text, record_line
    from inspector.engine.read.commitlog.body import BodyPreview, body_line, body_preview, decompress_body
    from inspector.engine.read.commitlog.commitlog import Entry, SegmentScan
    from inspector.engine.read.commitlog.trace import (
        TRACE_FIELDS,
        TRACE_TOPIC,
        TRACE_TOPIC_PREFIX,
        TraceBody,
        TraceEntry,
        TraceOther,
        TraceRecord,
        TraceTimeline,
        configured_trace_topic,
        decode_trace,
        decode_trace_bytes,
        is_trace_topic,
    )
    from inspector.engine.read.config.settings import DelayTable, Setting
    from inspector.engine.read.config.storeroot import check_store_root, not_a_store
    from inspector.engine.read.diff.result import StoreDiff
    from inspector.engine.read.groups.groups import (
        DEFAULT_PENDING,
        GroupQueue,
        GroupSummary,
        GroupView,
        QueueMessage,
        TopicCount,
    )
    from inspector.engine.read.groups.reset import OffsetPlan, PlannedQueue
    from inspector.engine.read.index.coverage import IndexSpan, Uncovered
    from inspector.engine.read.index.indexfile import IndexFileReader
    from inspector.engine.read.index.keys import indexed_key
    from inspector.engine.read.index.slots import busiest_slots, slot_occupancy, walk_slot
    from inspector.engine.read.queues.batchconsumequeue import (
        BatchConsumeQueue,
        inner_messages,
        is_inner_batch,
    )
    from inspector.engine.read.search.grep import GrepEnd, GrepHit
    from inspector.engine.read.search.pattern import (
        SEARCH_FIELDS,
        SearchPattern,
        compile_pattern,
        parse_fields,
    )
    from inspector.engine.read.search.timestep import TimeStep, TimeStop
    from inspector.engine.read.search.topics import topic_suggestions, unknown_topic_note
    from inspector.engine.read.search.window import LogWindow, in_window
    from inspector.engine.read.stats.stats import (
        BY,
        SIZE_LABELS,
        Counts,
        RetentionStep,
        StoreStats,
        stats_view,
    )
    from inspector.engine.read.store.answers import (
        UNINDEXED_SCAN_BYTES,
        checkpoint_future_note,
        committed_offsets,
        dledger_view,
        expired_id_reason,
        expired_key_reason,
        expired_start_note,
        grep,
        group_of,
        groups_of,
        item_key_text,
        key_missing_reason,
        log_window,
        open_timer,
        page_before,
        plan_offsets,
        queue_window,
        record_at_time,
        recovery_start,
        store_diff,
        store_geometry,
        store_stats,
        story_of,
        time_step,
        trace_of,
        trace_topic_of,
    )
    from inspector.engine.read.store.census import census, census_summary, census_view
    from inspector.engine.read.store.opening import (
        open_store,
        read_broker_config,
        store_config,
        store_input_problem,
    )
    from inspector.engine.read.store.recovery import NOT_FATAL, Recovery
    from inspector.engine.read.store.store import MAX_TIME, Store
    from inspector.engine.read.story.story import STORY_ROLES, GroupProgress, Story, StoryRecord
    from inspector.engine.scan.batch import MessageBatch
    from inspector.engine.scan.record_layout import CHECK_BODY_CRC
    from inspector.engine.workshop.exercise_model import exercise_view, result_view
    from inspector.engine.workshop.exercises import generate
    from inspector.engine.workshop.teaching import (
        DEFAULT_HASHES,
        DEFAULT_SLOTS,
        build_steps,
        key_hash_steps,
        lookup,
    )
    from inspector.engine.workshop.templates import write_templates
    from inspector.engine.workshop.tour_steps import NOT_COMPUTED, tour_steps
    from inspector.engine.workshop.tour_targets import cursor_offset, step_view
