"""Kaitai Struct (``.ksy``) and ImHex (``.hexpat``) templates generated from the construct schemas in ``parsers/``.

``write_templates(out_dir)`` writes both families for the commitlog segment (message and BLANK records), the
consume-queue file (20-byte units), the index file (header, slots, items) and the checkpoint. The layouts are
read off the schemas by :mod:`inspector.engine.workshop.templates.walker`; nothing is described by hand a second time.
The one engine package that may import construct itself (tests/test_import_layers.py).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["render_templates", "write_templates"]


def render_templates() -> dict[str, str]:
    """File name -> text of every template (``.ksy`` and ``.hexpat``)."""
    from inspector.engine.workshop.templates import imhex, kaitai

    return {**kaitai.render_all(), **imhex.render_all()}


def write_templates(out_dir: str | Path) -> list[Path]:
    """Write every template into ``out_dir`` (created if missing); returns the files written, sorted."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in sorted(render_templates().items()):
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
