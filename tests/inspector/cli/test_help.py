"""Help the way people type it: every command and subcommand answers -h and --help with exit 0 and its usage,
`--version` gives the installed version, and the top-level usage shows the main form `rmq-inspect STORE` first.

The commands are discovered from the parsers themselves (and, for `spark`, from its dispatcher's job table),
so a new command is walked without editing this file."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterator

import pytest

from inspector import version
from inspector.cli.main import build_parser
from inspector.cli.main import main as rmq_inspect
from inspector.spark import cli as spark_cli


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return {name: sub for action in parser._actions if isinstance(action, argparse._SubParsersAction)  # noqa: SLF001
            for name, sub in action.choices.items()}


def _spark_jobs() -> dict[str, argparse.ArgumentParser]:
    """The Spark dispatcher's jobs, each with the parser its module builds."""
    return {job: importlib.import_module(f"inspector.spark.jobs.{module}").parser()
            for job, module in spark_cli.MODULES.items()}


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, sub in _subcommands(parser).items():
        yield (*path, name)
        yield from _walk(sub, (*path, name))
        if (*path, name) == ("spark",):  # a dispatcher: its jobs parse their own arguments
            for job, job_parser in _spark_jobs().items():
                yield (*path, name, job)
                yield from _walk(job_parser, (*path, name, job))


COMMANDS = sorted(_walk(build_parser()))


def test_the_walk_found_the_commands_and_the_spark_jobs():
    assert ("info",) in COMMANDS and ("spark",) in COMMANDS and ("spark", "rebuild-cq") in COMMANDS
    assert len(COMMANDS) >= len(_subcommands(build_parser())) + len(spark_cli.MODULES)


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_answers_help_with_exit_0(command, flag, capsys):
    try:
        code = rmq_inspect([*command, flag])
    except SystemExit as e:  # main() returns its codes; an escaping exit is a bug of its own
        pytest.fail(f"{command}: SystemExit({e.code}) escaped main()")
    out, err = capsys.readouterr()
    assert code == 0, (command, flag, err)
    assert "Traceback" not in out + err and err == ""
    assert out.startswith("usage: rmq-inspect " + " ".join(command)), out[:200]


def test_the_top_level_usage_shows_the_main_form_first(capsys):
    assert rmq_inspect(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: rmq-inspect STORE ")
    assert "rmq-inspect COMMAND" in out and "--version" in out


def test_version_comes_from_the_package_metadata(capsys):
    from importlib.metadata import version as installed

    assert rmq_inspect(["--version"]) == 0
    assert capsys.readouterr().out == f"rmq-inspect {installed('rmq-inspect')}\n"
    assert version() == installed("rmq-inspect")


def test_a_bare_group_still_prints_its_usage_and_exits_2(capsys):
    """Unchanged: a bare `rmq-inspect` / `rmq-inspect spark` is an incomplete command (the usage, exit 2)."""
    assert rmq_inspect([]) == 2
    assert capsys.readouterr().out.startswith("usage: rmq-inspect STORE")
    assert rmq_inspect(["spark"]) == 2
    assert "rebuild-cq" in capsys.readouterr().out
