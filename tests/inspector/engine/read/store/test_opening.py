"""Opening a store from what the user typed (path, --broker-config, flags) and an engine error's exit code:
the one function every front end calls (inspector.engine.read.store.opening)."""

from __future__ import annotations

from pathlib import Path

import pytest
from split_commitlog import split_commitlog

from inspector.engine import (
    BadInput,
    BrokerConfig,
    NotFound,
    StoreError,
    exit_code,
    load_broker_config,
    open_store,
    read_broker_config,
    store_config,
    store_input_problem,
)

SAMPLE = Path(__file__).resolve().parents[5] / "sample_store"


def test_a_store_opens_with_its_flags_and_says_where_each_setting_came_from() -> None:
    with open_store(SAMPLE, delay_levels="1s 2s") as store:
        assert store.segments
        delay = next(s for s in store.settings() if s.name == "messageDelayLevel")
        assert (delay.value, delay.source) == ("1s 2s", "flag")


def test_a_broker_config_path_is_read_and_names_the_commitlog_elsewhere(tmp_path: Path) -> None:
    root, conf, dirs = split_commitlog(SAMPLE, tmp_path)
    with open_store(root) as store:  # without the file: the root's own (absent) commitlog/
        assert store.segments == []
    for given in (conf, str(conf), load_broker_config(conf)):  # a path, or the file already parsed
        with open_store(root, broker_config=given) as store:
            assert len(store.segments) == 3
    assert isinstance(store_config(root, conf), BrokerConfig)
    assert store_input_problem(root, read_broker_config(conf)) is None
    (tmp_path / "empty").mkdir()
    assert store_input_problem(tmp_path / "empty", None) is not None


def test_a_wrong_folder_or_a_bad_broker_config_is_bad_input_naming_it(tmp_path: Path) -> None:
    with pytest.raises(BadInput) as e:
        open_store(tmp_path)
    assert str(tmp_path) in str(e.value) and exit_code(e.value) == 2
    conf = tmp_path / "broker.conf"
    conf.write_text("maxIndexNum=lots\n")
    with pytest.raises(BadInput) as e:
        open_store(SAMPLE, broker_config=conf)
    assert "line 1" in str(e.value)
    assert read_broker_config(None) is None and read_broker_config("") is None


def test_each_engine_error_has_its_documented_exit_code() -> None:
    assert [exit_code(e) for e in (NotFound("x"), BadInput("x"), StoreError("x"))] == [1, 2, 3]
