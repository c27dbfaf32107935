"""``rmq-inspect tour``, ``exercises`` and ``templates``: the workshop commands.

The tour and the exercises come from the engine (:mod:`inspector.engine.workshop.tour_steps`, :mod:`inspector.engine.workshop.exercises`);
this module only prints them, reusing the other commands' renderers (hex data, chains, ids, messages).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from inspector.cli.output import console, esc, plain, print_json, table
from inspector.cli.workshop_args import DEFAULT_STORE, add_parsers  # noqa: F401 - add_parsers: re-exported
from inspector.engine import BadInput, NotFound, Store, read_json

COMMANDS = ("tour", "exercises", "templates")
PROMPT = "[Enter] next, b back, a step number, q quit > "
FOCUS_STYLE = "bold black on yellow"
SPAN_STYLES = ("black on cyan", "black on green")
MAX_HEX = 1024  # bytes of one hex view printed by the tour (long bodies are cut)
ELIDE_ABOVE = 8  # longer dumps print only the rows where a highlighted field starts (and the first and last)


def run(args: argparse.Namespace, open_store: Callable[[argparse.Namespace], Store],
        input_fn: Callable[[str], str] | None = None) -> int:
    if args.command == "templates":
        return run_templates(args.out, args.json)
    if args.command == "tour" and args.store is None:
        if not Path(DEFAULT_STORE).is_dir():
            raise BadInput(f"no STORE given and no ./{DEFAULT_STORE} directory here")
        args.store = DEFAULT_STORE
    with open_store(args) as store:
        if args.command == "tour":
            return run_tour(store, args.step, args.all, args.json, input_fn)
        return run_exercises(store, args.seed, args.count, args.answers, args.answer_key, args.json, input_fn)


# -- templates -------------------------------------------------------------------------------------------------------


def run_templates(out: str, as_json: bool) -> int:
    from inspector.engine import write_templates

    written = write_templates(out)
    if as_json:
        print_json({"out": str(out), "files": [str(p) for p in written]})
        return 0
    for p in written:
        console.print(plain(p))
    console.print(f"{len(written)} template(s) written: open commitlog segments, consume-queue files, index files "
                  "and the checkpoint with Kaitai Struct (.ksy) or ImHex (.hexpat).")
    return 0


# -- tour --------------------------------------------------------------------------------------------------------------


def run_tour(store: Store, step: int | None, show_all: bool, as_json: bool,
             input_fn: Callable[[str], str] | None = None) -> int:
    from inspector.engine import step_view, tour_steps

    input_fn = input_fn or input  # looked up now, so a replaced builtins.input is honoured
    steps = tour_steps(store)
    if step is not None and not 1 <= step <= len(steps):
        raise BadInput(f"--step must be between 1 and {len(steps)}")
    if as_json:
        print_json(step_view(steps[step - 1]) if step is not None else [step_view(s) for s in steps])
        return 0
    if step is not None:
        print_step(store, steps[step - 1], len(steps))
        return 0
    if show_all:
        for s in steps:
            print_step(store, s, len(steps))
        return 0
    i = 0
    while True:
        print_step(store, steps[i], len(steps))
        try:
            cmd = input_fn(PROMPT).strip().lower()
        except EOFError:
            return 0
        if cmd in ("q", "quit", "exit"):
            return 0
        if cmd in ("b", "back", "p", "prev"):
            i = max(0, i - 1)
        elif cmd.isdigit():
            if 1 <= int(cmd) <= len(steps):
                i = int(cmd) - 1
            else:
                console.print(f"[yellow]there are steps 1 to {len(steps)}[/]", markup=True)
        elif cmd in ("", "n", "next"):
            if i == len(steps) - 1:
                console.print("End of the tour. Try `rmq-inspect exercises` next.")
                return 0
            i += 1
        else:
            console.print("[yellow]Enter for the next step, b to go back, a number to jump, q to quit[/]", markup=True)


def print_step(store: Store, step, total: int) -> None:
    console.print(Rule(f"Step {step.number}/{total}: {plain(step.title)}", align="left"))
    console.print(plain(step.text, multiline=True))
    if not step.available:
        console.print(f"[yellow]This store lacks this case:[/] {esc(step.missing_reason or '', multiline=True)}", markup=True)
        return
    console.print()
    print_target(store, step.target)
    for extra in step.extra:
        console.print()
        print_target(store, extra)
    if step.commands:
        console.print()
        console.print("[bold]Try:[/] " + "\n     ".join(esc(c) for c in step.commands), markup=True)
    console.print()


def print_target(store: Store, target) -> None:
    kind = getattr(target, "kind", None)
    caption = getattr(target, "caption", "")
    if caption:
        console.print(f"[bold]{esc(caption, multiline=True)}[/]", markup=True)
    if kind == "directory":
        t = table(f"{plain(target.root)}/", "path", "files", "what it holds")
        for e in target.entries:
            t.add_row(plain(e.path), "" if e.count is None else str(e.count), plain(e.role))
        console.print(t)
    elif kind == "hex":
        print_hex(store, target.start, target.end, target.highlights, target.focus)
    elif kind == "cq":
        _print_cq(store, target)
    elif kind == "chain":
        _print_chain(store, target)
    elif kind == "index-header":
        _print_index_header(target)
    elif kind == "ids":
        from inspector.cli import ids

        ids.run(target.msg_id, store, False)
        ids.run(target.unique_key, store, False)
    elif kind == "recovery":
        t = table("recovery", "", "")
        for name, value in (("mode", target.mode), ("starts at segment", target.start_segment),
                            ("last good record", target.last_record_offset), ("log ends at", target.end_offset),
                            ("why", target.reason), ("torn tail", "yes" if target.torn else "no")):
            t.add_row(name, plain(value))
        console.print(t)
        print_hex(store, target.start, target.end, target.highlights, None)
    elif kind == "rebuild":
        t = table("rebuild", "", "")
        for name, value in (("reads the commitlog from", target.min_offset), ("to the recovered end", target.end_offset),
                            ("consume queues", target.queues), ("consume-queue units", target.cq_units),
                            ("index files", target.index_files), ("index items", target.index_items),
                            ("command", target.command)):
            t.add_row(name, plain(value))
        console.print(t)


def print_hex(store: Store, start: int, end: int, highlights, focus: str | None) -> None:
    """A hex dump of [start, end) (built from ``hexdump.hex_data``) with the step's spans coloured."""
    from inspector.cli import hexdump

    cut = end - start > MAX_HEX
    d = hexdump.hex_data(store, start, min(end - start, MAX_HEX))
    data = bytes.fromhex(d["bytes_hex"])
    style_at: dict[int, str] = {}
    notes: dict[int, list[str]] = {}
    for n, span in enumerate(highlights):
        is_focus = focus is not None and span.label.endswith(focus)
        style = FOCUS_STYLE if is_focus else SPAN_STYLES[n % len(SPAN_STYLES)]
        for b in range(max(span.start, start), min(span.end, start + len(data))):
            style_at[b] = style
        notes.setdefault(max(span.start, start), []).append(("→ " if is_focus else "") + plain(span.label))
    fields = {f["start"]: f for r in d["regions"] for f in r["fields"]}
    rows = range(0, len(data), 16)
    keep = {rows[0], rows[-1]} | {r for r in rows if any(b in notes for b in range(start + r, start + r + 16))}
    elided = False
    for row in rows:
        if len(rows) > ELIDE_ABOVE and row not in keep:
            if not elided:
                console.print(" " * 14 + "  [dim]…[/]", markup=True)
            elided = True
            continue
        elided = False
        base = start + row
        line = hexdump.hex_row(data, start, row, style_at)
        row_notes = []
        for b in range(base, base + 16):
            for label in notes.get(b, []):
                value = fields.get(b, {}).get("value")
                row_notes.append(f"{label} = {plain(value)}" if value is not None and len(value) <= 60 else label)
        if row_notes:
            line.append("  " + "; ".join(row_notes), style="cyan")
        console.print(line, overflow="ignore", crop=False)
    if cut:
        console.print(f"[dim]… {end - start - MAX_HEX} more bytes (rmq-inspect hex shows them all)[/]", markup=True)


def _print_cq(store: Store, target) -> None:
    t = table(f"{plain(target.file)} @ {target.position}: unit {target.queue_offset} of {plain(target.topic)} queue "
              f"{target.queue_id}",
              "bytes", "field", "value")
    raw = target.unit_hex
    t.add_row(raw[0:16], "physical offset (8)", str(target.physical_offset))
    t.add_row(raw[16:24], "size (4)", str(target.size))
    t.add_row(raw[24:40], "tagsCode (8)", f"{target.tags_code}: {plain(target.tags_meaning)}")
    console.print(t)


def _print_chain(store: Store, target) -> None:
    from inspector.cli import index

    console.print(f"{plain(target.key_string)}: hashCode {target.hash_code} → keyHash {target.key_hash} → "
                  f"{target.key_hash} % {target.slot_count} = slot {target.slot} (byte {target.slot_position} of "
                  f"{plain(target.file)})")
    if target.other_key:
        console.print(f"[yellow]collision:[/] {esc(target.topic)}#{esc(target.other_key)} has the same hash; "
                      f"item(s) {', '.join(map(str, target.collision_items))} are its", markup=True)
    index.run_chain(store, target.topic, target.key, False)


def _print_index_header(target) -> None:
    t = table(f"{plain(target.file)}: header (bytes 0-39)", "bytes", "field", "value")
    for n, (name, value) in enumerate(target.values):
        cells = (f"{n * 8}-{n * 8 + 7}" if n < 4 else f"{32 + (n - 4) * 4}-{35 + (n - 4) * 4}", name, str(value))
        if name in target.fields:
            cells = tuple(Text(c, style=FOCUS_STYLE) for c in cells)
        t.add_row(*cells)
    console.print(t)
    console.print(f"slot table: {target.slot_count} slots (configuration), {target.used_slots} in use; "
                  f"item table: {target.item_count} items (configuration), {target.items_written} written")


# -- exercises ---------------------------------------------------------------------------------------------------------


def run_exercises(store: Store, seed: int, count: int, answers_path: str | None, answer_key: bool, as_json: bool,
                  input_fn: Callable[[str], str] | None = None) -> int:
    from inspector.engine import EXERCISE_COUNT, exercise_view, generate

    input_fn = input_fn or input
    EXERCISE_COUNT.check(count, "argument --count:")
    exercises = generate(store, seed, count)
    if not exercises:
        raise NotFound("this store has no case for any exercise")
    if answer_key:
        if as_json:
            print_json({"seed": seed, "exercises": [exercise_view(e, with_answer=True) for e in exercises]})
            return 0
        t = table(f"Answer key (seed {seed})", "#", "question", "answer", "how to find it")
        for e in exercises:
            t.add_row(str(e.number), plain(e.question, multiline=True), plain(e.answer), plain(e.command))
        console.print(t)
        return 0
    if answers_path is not None:
        answers = load_answers(answers_path, exercises)
    else:
        # with --json stdout is the document: the prompt goes to stderr (it was the document's first line)
        answers = _ask(exercises, _prompt_on_stderr(input_fn) if as_json else input_fn, quiet=as_json)
    results = [(e, e.check(answers.get(e.id, ""))) for e in exercises]
    score = sum(r.correct for _, r in results)
    if as_json:
        print_json({
            "seed": seed, "score": score, "total": len(results),
            "results": [{**exercise_view(e, with_answer=True), "given": r.given, "correct": r.correct,
                         "explanation": r.explanation} for e, r in results],
        })
        return 0
    if answers_path is not None:
        for e, r in results:
            _print_result(e, r)
    console.print(f"[bold]Score: {score}/{len(results)}[/] (seed {seed})", markup=True)
    return 0


def _prompt_on_stderr(input_fn: Callable[[str], str]) -> Callable[[str], str]:
    def ask(prompt: str) -> str:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        return input_fn("")

    return ask


def _ask(exercises, input_fn, quiet: bool) -> dict[str, str]:
    answers: dict[str, str] = {}
    for e in exercises:
        if not quiet:
            console.print(Panel(plain(e.question, multiline=True), title=f"{e.number}/{len(exercises)}", title_align="left",
                                subtitle=esc(e.format_hint), subtitle_align="left"))
        try:
            given = input_fn("answer (Enter to skip) > ")
        except EOFError:
            break
        answers[e.id] = given
        if not quiet:
            _print_result(e, e.check(given), with_question=False)
    return answers


def _print_result(e, r, with_question: bool = True) -> None:
    mark = "[green]✓ right[/]" if r.correct else "[red]✗ wrong[/]"
    given = esc(r.given) if r.given else "[dim](no answer)[/]"
    head = f"{e.number}. {esc(e.question, multiline=True)}\n" if with_question else ""
    console.print(f"{head}   your answer: {given}  {mark}\n   {esc(r.explanation, multiline=True)}", markup=True)


def load_answers(path: str, exercises) -> dict[str, str]:
    """Answers from a JSON file: an object keyed by exercise id, number ("1") or kind, or a list in order."""
    try:
        data = read_json(path, "an answers file", 1 << 20)  # guarded: a regular file, JSON within limits
    except OSError as e:
        raise BadInput(f"cannot read the answers file: {e.strerror}", path) from None
    except ValueError as e:
        raise BadInput(f"the answers file is not JSON: {e}", path) from None
    answers: dict[str, str] = {}
    if isinstance(data, list):
        for e, item in zip(exercises, data, strict=False):
            if isinstance(item, dict):
                continue
            answers[e.id] = "" if item is None else str(item)
        for item in data:
            if isinstance(item, dict) and "id" in item:
                answers[str(item["id"])] = str(item.get("answer", ""))
        return answers
    if not isinstance(data, dict):
        raise BadInput("the answers file must hold a JSON object or list", path)
    for e in exercises:
        for key in (e.id, str(e.number), e.kind):
            if key in data and data[key] is not None:
                answers[e.id] = str(data[key])
                break
    return answers
