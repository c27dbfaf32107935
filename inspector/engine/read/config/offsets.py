"""Where the broker keeps its consumer offsets, and which of the places a reader must believe.

``BrokerController.initializeMetadata`` (5.3.1) picks the consumer-offset manager from the configuration:
``storeType=defaultRocksDB`` -> ``RocksDB[Lmq]ConsumerOffsetManager`` (``config/consumerOffsets/``), else
``enableLmq=true`` -> ``LmqConsumerOffsetManager`` (``config/lmqConsumerOffset.json``, every offset: its
``offsetTable`` and the LMQ groups' ``lmqOffsetTable``), else ``consumerOffset.json``; 5.3.2+ with
``configManagerVersion=v2`` -> ``ConsumerOffsetManagerV2`` (``config/rdb/``). Without ``--broker-config`` the
files present decide, in the same order. The other sources present are compared with the chosen one: a stale
``consumerOffset.json`` beside the live database is a finding, not a silent second truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from inspector.engine.model.broker_config import BrokerConfig
from inspector.engine.model.errors import StoreError
from inspector.engine.model.records import Problem
from inspector.engine.read.config.config import ConfigSet
from inspector.engine.read.config.rocksdb_config import (
    V2_DATABASE,
    Offsets,
    read_database,
    v1_offsets,
    v2_offsets,
)
from inspector.engine.read.queues.rocksdb_queue import is_rocksdb_dir

JSON = "config/consumerOffset.json"
LMQ_JSON = "config/lmqConsumerOffset.json"
V1 = "config/consumerOffsets"
V2 = V2_DATABASE


@dataclass
class ConsumerOffsets:
    """The offsets lag is computed from: ``source`` (a path under the root), why it was chosen, its table,
    and findings (disagreeing or missing sources). ``error``: the chosen source could not be read at all."""

    source: str
    reason: str
    table: Offsets = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    error: StoreError | None = None

    def label(self) -> str:
        return f"offsets from {self.source}"


@dataclass(frozen=True)
class OffsetPlaces:
    """What the choice of a source reads: the store root, its config files (read once by the store) and the
    broker's configuration when one was given."""

    root: Path
    config: ConfigSet
    broker_config: BrokerConfig | None


def _present(places: OffsetPlaces) -> dict[str, bool]:
    root, files = places.root, places.config.files
    return {JSON: "consumerOffset.json" in files, LMQ_JSON: "lmqConsumerOffset.json" in files,
            V1: (root / V1).is_dir(), V2: (root / V2).is_dir()}


def sources_present(places: OffsetPlaces) -> list[str]:
    """Every place that holds consumer offsets in this store, in the order the broker would prefer them."""
    present = _present(places)
    return [source for source in (V2, V1, LMQ_JSON, JSON) if present[source]]


def choose(places: OffsetPlaces) -> tuple[str, str]:
    """(source, why): the broker's choice from its configuration, else from the files present."""
    config = places.broker_config
    present = _present(places)
    if config is not None:
        where = f"{config.file}"
        if config.properties.get("configManagerVersion", "").strip().lower() == "v2":
            return V2, f"configManagerVersion=v2 in {where}"
        if config.storeType == "defaultRocksDB":
            return V1, f"storeType=defaultRocksDB in {where}"
        if config.enableLmq:
            return LMQ_JSON, f"enableLmq=true in {where}"
        if config.storeType is not None or config.enableLmq is not None:
            return JSON, f"storeType/enableLmq as set in {where}"
    for source, why in ((V2, "the store has config/rdb/, as a configManagerVersion=v2 broker keeps"),
                        (V1, "the store has config/consumerOffsets/, as a storeType=defaultRocksDB broker keeps"),
                        (LMQ_JSON, "the store has config/lmqConsumerOffset.json, as an enableLmq broker keeps")):
        if present[source]:
            return source, why
    return JSON, "the default (no LMQ or RocksDB offsets in the store)"


def read_source(places: OffsetPlaces, source: str) -> tuple[Offsets, list[Problem]]:
    """The table of one source; StoreError when a RocksDB database cannot be read."""
    if source == JSON:
        return places.config.consumer_offsets, []
    if source == LMQ_JSON:
        return places.config.lmq_consumer_offsets, []
    path = places.root / source
    if not is_rocksdb_dir(path):
        raise StoreError("not a RocksDB database (no CURRENT file)", source)
    families = read_database(path, source)
    return v1_offsets(families, source) if source == V1 else v2_offsets(families, source)


def load_consumer_offsets(places: OffsetPlaces) -> ConsumerOffsets:
    source, reason = choose(places)
    present = _present(places)
    result = ConsumerOffsets(source, reason)
    if not present[source]:
        if source != JSON or places.broker_config is not None:  # no consumerOffset.json at all: a new broker
                result.problems.append(Problem(source, 0, f"{reason}, but {source} is missing: no consumer offsets, "
                                           "no lag", "offsets-source-missing", "warning"))
    else:
        try:
            result.table, result.problems = read_source(places, source)
        except StoreError as e:
            result.error = e
            result.problems.append(Problem(e.file or source, 0, f"consumer offsets unreadable: {e.reason}",
                                           "unreadable-offsets"))
    for other in (JSON, LMQ_JSON, V1, V2):
        if other == source or not present[other] or result.error is not None:
            continue
        try:
            table, _ = read_source(places, other)
        except StoreError as e:
            result.problems.append(Problem(e.file or other, 0, f"{e.reason} (not the source used)",
                                           "unreadable-offsets", "warning"))
            continue
        result.problems += _disagreements(result, other, table)
    return result


def _disagreements(chosen: ConsumerOffsets, other: str, table: Offsets) -> list[Problem]:
    """One finding when ``other`` holds a different offset for a queue the chosen source also has."""
    differ = [(tg, q, o, chosen.table[tg][q]) for tg, queues in sorted(table.items()) for q, o in sorted(queues.items())
              if tg in chosen.table and q in chosen.table[tg] and chosen.table[tg][q] != o]
    if not differ:
        return []
    (topic, group), q, theirs, ours = differ[0]
    return [Problem(other, 0, f"{len(differ)} offset(s) differ from {chosen.source} (the source used), e.g. "
                    f"{topic}@{group} queue {q}: {theirs} here, {ours} there; lag is from {chosen.source}",
                    "offsets-disagree", "warning")]
