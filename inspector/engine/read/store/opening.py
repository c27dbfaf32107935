"""Open a store from what the user typed: the one way every front end (CLI, TUI, web, Spark) turns a path, a
``--broker-config`` file and the geometry flags into an open :class:`Store`, and an engine error into the
documented exit code (``model.errors.exit_code``).

The order matters and is the same everywhere: the broker.conf is read first (a malformed one is ``BadInput``
naming its line), then the path is checked to be a store root (it may hold no ``commitlog/`` when the
broker.conf puts the commitlog elsewhere), then the store is opened; never "clean, 0 problems" on a wrong folder.
"""

from __future__ import annotations

from pathlib import Path

from inspector.engine.model.broker_config import BrokerConfig, load_broker_config
from inspector.engine.read.config.storeroot import check_store_root, not_a_store
from inspector.engine.read.store.store import Store

__all__ = ["open_store", "read_broker_config", "store_config", "store_input_problem"]


def read_broker_config(path: str | Path | None) -> BrokerConfig | None:
    """The broker.conf the user named (``--broker-config``), parsed; None when none was named."""
    return load_broker_config(path) if path else None


def store_input_problem(path: str | Path, config: BrokerConfig | None) -> str | None:
    """Why ``path`` cannot be opened or is no store root, read with ``config`` (a commitlog kept elsewhere
    makes a root without ``commitlog/`` a store); None when it is one."""
    return not_a_store(path, commitlog_elsewhere=bool(config and config.commitlog_paths()))


def store_config(path: str | Path, broker_config: str | Path | None = None) -> BrokerConfig | None:
    """The parsed broker.conf for the store at ``path``, after checking ``path`` is a store root read with it
    (``BadInput`` naming the path or the broker.conf's line otherwise): for commands that look at a store's
    files without opening it (``census``)."""
    return _checked(path, read_broker_config(broker_config))


def _checked(path: str | Path, config: BrokerConfig | None) -> BrokerConfig | None:
    check_store_root(path, commitlog_elsewhere=bool(config and config.commitlog_paths()))
    return config


def open_store(path: str | Path, *, broker_config: str | Path | BrokerConfig | None = None,
               segment_size: int | None = None, cq_file_size: int | None = None, index_slots: int | None = None,
               index_items: int | None = None, delay_levels: str | None = None,
               dledger_member: str | None = None) -> Store:
    """The store at ``path`` opened read-only with the user's broker.conf (a path, or one already parsed) and
    flags (flags win over the file; ``store.settings()`` lists each setting and where it came from).

    Raises ``BadInput`` (exit 2) for a malformed broker.conf or a path that is no store root, and the
    engine's other errors as they come (``exit_code`` maps each to its exit code)."""
    config = (_checked(path, broker_config) if isinstance(broker_config, BrokerConfig)
              else store_config(path, broker_config))
    return Store(path, segment_size=segment_size, cq_file_size=cq_file_size, index_slots=index_slots,
                 index_items=index_items, broker_config=config, delay_levels=delay_levels,
                 dledger_member=dledger_member)
