"""Fixtures of the corruption suite (each named scenario's damaged store, built once per test module) and of the
fuzzers (a scratch folder; the pristine stores a structure mutation names, read once per module)."""

from __future__ import annotations

from pathlib import Path

import pytest
from damage_scenarios import (
    DATA_SCENARIOS,
    PATH_SCENARIOS,
    Damage,
    Scenario,
    make,
    restore_permissions,
    running_as_root,
)
from store_mutations import SAMPLE_STORES, Layout, build_store, copy_store, read_layout


def _build(request, tmp_path_factory) -> tuple[Scenario, Path, Damage]:
    scenario: Scenario = request.param
    if scenario.needs_permissions and running_as_root():
        pytest.skip("running as root: chmod 000 does not stop root from reading; "
                    "test_no_read_permission_with_the_override_capabilities_dropped runs this case under setpriv")
    base = tmp_path_factory.mktemp(scenario.name)
    request.addfinalizer(lambda: restore_permissions(base))
    root, damage = make(scenario, base)
    return scenario, root, damage


@pytest.fixture(scope="module", params=DATA_SCENARIOS, ids=lambda s: s.name)
def damaged(request, tmp_path_factory) -> tuple[Scenario, Path, Damage]:
    """(scenario, store root, what must be found) for every scenario that damages the store's files."""
    return _build(request, tmp_path_factory)


@pytest.fixture(scope="module", params=PATH_SCENARIOS, ids=lambda s: s.name)
def broken_path(request, tmp_path_factory) -> tuple[Scenario, Path, Damage]:
    """The store-path scenarios: a file, a symlink loop, a missing path, a directory nobody may read."""
    return _build(request, tmp_path_factory)


@pytest.fixture(scope="session")
def compiled_kernels() -> None:
    """Every kernel compiled (or loaded from numba's cache) before a fuzzer's watchdog starts counting: on a fresh
    clone the first example to reach a kernel would otherwise pay its compilation (seconds per kernel on a busy
    machine) and be reported as a hang."""
    import contextlib
    import io

    from damage_scenarios import SAMPLE

    from inspector.cli.main import main
    from inspector.engine.scan.kernels import numba_enabled

    if not numba_enabled():
        return
    s = str(SAMPLE)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in (["verify", s, "--json"], ["messages", s, "--json", "--limit", "1000000"],
                     ["messages", s, "--topic", "OrderEvents", "--queue", "1", "--json"], ["info", s, "--json"],
                     ["key", s, "OrderEvents", "order-1108"], ["chain", s, "OrderEvents", "order-1108", "--json"],
                     # a geometry that does not fit the files takes kernels the store's own does not (the long
                     # argument run met verify --index-items 983 compiling them: 13 s under load)
                     ["verify", s, "--index-items", "983"], ["verify", s, "--index-slots", "2353"],
                     ["verify", s, "--segment-size", "4096"], ["verify", s, "--cq-file-size", "40"]):
            main(argv)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A fuzzer's scratch folder (copies of the pristine stores, mutated one example at a time)."""
    return tmp_path_factory.mktemp("fuzz-scratch")


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> Layout:
    """A pristine copy of the sample store, read once."""
    root = tmp_path_factory.mktemp("pristine") / "store"
    copy_store(Layout(SAMPLE_STORES / "sample_store"), root)
    return read_layout(root)


@pytest.fixture(scope="module")
def layouts(tmp_path_factory, layout: Layout) -> dict[str, Layout]:
    """Every pristine store a mutation may name (``Mutation.store``): the sample, the DLedger sample and the
    writer-made timer, LMQ and batch stores, read once."""
    base = tmp_path_factory.mktemp("pristine-new")
    found = {name: read_layout(build_store(name, base / name)) for name in ("dledger", "timer", "lmq", "batch")}
    return {"sample": layout, **found}
