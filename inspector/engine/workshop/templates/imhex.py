"""ImHex ``.hexpat`` patterns generated from the construct schemas in ``parsers/``.

Same four files as the Kaitai templates. Record layouts come from :mod:`inspector.engine.workshop.templates.walker`; the
file-level placements below are written here (each marked "special case"). Bit-level types (SysFlag) are not
emitted: ImHex numbers bitfield members from a configurable end, and a pattern that cannot be run here should
not guess; field 8 carries the bit meanings in its comment instead.
"""

from __future__ import annotations

import dataclasses

from inspector.engine.workshop.templates import walker as w
from inspector.engine.workshop.templates.kaitai import (
    BLANK_MAGIC,
    GENERATED,
    INDEX_HEADER_SIZE,
    INDEX_PER_SLOT,
    MESSAGE_MAGICS,
)
from parsers import checkpoint, commitlog, consumequeue, indexfile

SYS_FLAG_NOTE = ("bits: 0x1 compressed, 0x2 multi tags, 0xC transaction (4 prepared, 8 commit, 12 rollback), "
                 "0x10 born host IPv6, 0x20 store host IPv6, 0x40 need unwrap, 0x80 inner batch, "
                 "0x700 codec (0/3 zlib, 1 lz4, 2 zstd)")
INDENT = "    "


def _int_type(spec: w.Int) -> str:
    prefix = "" if spec.big_endian else "le "
    return f"{prefix}{'s' if spec.signed else 'u'}{spec.size * 8}"


def _ref(r: w.Ref) -> str:
    return r.name  # sibling members and template parameters are both plain names in a struct body


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attr(doc: str) -> str:
    return f" [[comment({_quote(doc)})]]" if doc else ""


class _Emitter:
    def __init__(self, module: w.Module, notes: dict[tuple[str, str], str] | None = None):
        self.module = module
        self.notes = notes or {}

    def type_name(self, name: str) -> str:
        return w.camel(name)

    def struct(self, t: w.TypeDef) -> str:
        params = f"<{', '.join('auto ' + p for p in t.params)}>" if t.params else ""
        lines = []
        if t.doc:
            lines.append(f"/// {t.doc}")
        lines.append(f"struct {self.type_name(t.name)}{params} {{")
        for f in t.fields:
            doc = "; ".join(p for p in (f.full_doc, self.notes.get((t.name, f.name), "")) if p)
            lines.extend(INDENT + line for line in self.member(f.name, f.spec, doc))
        lines.append("};")
        return "\n".join(lines)

    def member(self, name: str, spec: w.Spec, doc: str) -> list[str]:
        if isinstance(spec, w.Int):
            return [f"{_int_type(spec)} {name}{_attr(doc)};"]
        if isinstance(spec, w.ConstInt):
            return [f"{_int_type(spec.of)} {name}{_attr(doc or f'always {spec.value}')};"]
        if isinstance(spec, w.Raw):
            return [f"u8 {name}[{w.render_expr(spec.length, _ref, hex_masks=True)}]{_attr(doc)};"]
        if isinstance(spec, w.LengthPrefixed):
            kind = "char" if spec.text else "u8"
            return [f"{_int_type(spec.length)} {name}_len{_attr(f'length of {name} in bytes')};",
                    f"{kind} {name}[{name}_len]{_attr(doc)};"]
        if isinstance(spec, w.TypeRef):
            args = f"<{', '.join(w.render_expr(a, _ref) for a in spec.args)}>" if spec.args else ""
            return [f"{self.type_name(spec.name)}{args} {name}{_attr(doc)};"]
        if isinstance(spec, w.Repeat):
            count = w.render_expr(spec.count, _ref)
            item = self.member(name, spec.item, doc)
            if len(item) != 1:
                raise w.TemplateError(f"{name}: arrays of multi-member shapes are not supported")
            head, _, tail = item[0].partition(f" {name}")
            return [f"{head} {name}[{count}]{tail}"]
        if isinstance(spec, w.Choice):
            cond = w.as_condition(spec.cond, _ref, hex_masks=True)
            return ([f"if ({cond}) {{"] + [INDENT + x for x in self.member(name, spec.then, doc)] + ["} else {"]
                    + [INDENT + x for x in self.member(name, spec.otherwise, doc)] + ["}"])
        raise w.TemplateError(f"{name}: {type(spec).__name__} has no ImHex rendering")

    def structs(self) -> list[str]:
        return [self.struct(t) for t in self.module.types.values() if not t.bits]


def _header(description: str) -> list[str]:
    return [f"// {GENERATED}", f"#pragma description {description}", "#pragma endian big", "", "import std.mem;", ""]


def commitlog_hexpat() -> str:
    module = w.walk([(commitlog.MessageRecord, None), (commitlog.BlankRecord, None)], commitlog)
    em = _Emitter(module, {("message_record", "sys_flag"): SYS_FLAG_NOTE})
    is_message = " || ".join(f"magic == {m}" for m in MESSAGE_MAGICS)
    lines = _header("Apache RocketMQ commitlog segment (commitlog/<20-digit start offset>)")
    lines.append("\n\n".join(em.structs()))
    # Special case: a segment is records until a BLANK record or the zero tail; the engine walks it in Python
    # (inspector/engine/read/commitlog/commitlog.py), here we peek at each record's magic before placing it.
    lines += [
        "",
        "fn magic_at(u128 pos) {",
        "    if (pos + 8 > std::mem::size()) return 0;",
        "    return std::mem::read_signed(pos + 4, 4, std::mem::Endian::Big);",
        "};",
        "",
        "fn is_message_at(u128 pos) {",
        "    s32 magic = magic_at(pos);",
        f"    return {is_message};",
        "};",
        "",
        "/// One segment: message records back to back, a record written only if 8 bytes stay free after it,",
        "/// then the 8-byte BLANK record (sealed segment) or zero bytes (the active segment).",
        "struct Segment {",
        "    MessageRecord records[while(is_message_at($))];",
        f"    if (magic_at($) == {BLANK_MAGIC})",
        "        BlankRecord blank;",
        "};",
        "",
        "Segment segment @ 0x00;",
    ]
    return "\n".join(lines) + "\n"


def consumequeue_hexpat() -> str:
    module = w.walk([(consumequeue.ConsumeQueueUnit, None)], consumequeue)
    em = _Emitter(module)
    lines = _header("Apache RocketMQ consume-queue file (consumequeue/<topic>/<queueId>/<20-digit byte offset>)")
    lines.append("\n\n".join(em.structs()))
    # Special case: a file of units is a plain repetition; parsers/ describes only the unit.
    unit = module.type("consume_queue_unit").size
    lines += ["", f"/// unit i holds queue offset (file name / {unit}) + i; units of size 0 are the unwritten tail",
              f"ConsumeQueueUnit units[std::mem::size() / {unit}] @ 0x00;"]
    return "\n".join(lines) + "\n"


def indexfile_hexpat() -> str:
    module = w.walk([(indexfile.IndexFile, None)], indexfile)
    module.types["index_file"] = dataclasses.replace(
        module.types["index_file"],
        doc="A whole index file; slot_count and item_count are broker configuration (maxHashSlotNum, maxIndexNum), "
            "not stored in the file")
    em = _Emitter(module)
    ratio = indexfile.DEFAULT_SLOT_TO_ITEM_RATIO
    lines = _header("Apache RocketMQ index file (index/<yyyyMMddHHmmssSSS>)")
    lines.append("\n\n".join(em.structs()))
    # Special case: slot and item counts are broker configuration (template parameters of IndexFile, from
    # this._.slot_count / this._.item_count); inferred here from the file size as parsers.indexfile.infer_geometry
    # does. Set them by hand for another geometry (defaults 5000000 and 20000000).
    lines += [
        "",
        f"/// maxHashSlotNum, inferred from the file size assuming maxIndexNum = {ratio} x maxHashSlotNum",
        f"u64 SLOT_COUNT = (std::mem::size() - {INDEX_HEADER_SIZE}) / {INDEX_PER_SLOT};",
        "/// maxIndexNum; item 0 is never written, items in use = header.index_count - 1",
        f"u64 ITEM_COUNT = SLOT_COUNT * {ratio};",
        "",
        "IndexFile<SLOT_COUNT, ITEM_COUNT> index_file @ 0x00;",
    ]
    return "\n".join(lines) + "\n"


def checkpoint_hexpat() -> str:
    module = w.walk([(checkpoint.Checkpoint, None)], checkpoint)
    em = _Emitter(module)
    lines = _header("Apache RocketMQ store checkpoint (4096 bytes at the store root)")
    lines.append("\n\n".join(em.structs()))
    lines += ["", "Checkpoint checkpoint @ 0x00;"]
    return "\n".join(lines) + "\n"


DOCUMENTS = {
    "rocketmq_commitlog.hexpat": commitlog_hexpat,
    "rocketmq_consumequeue.hexpat": consumequeue_hexpat,
    "rocketmq_indexfile.hexpat": indexfile_hexpat,
    "rocketmq_checkpoint.hexpat": checkpoint_hexpat,
}


def render_all() -> dict[str, str]:
    """File name -> .hexpat text."""
    return {name: build() for name, build in DOCUMENTS.items()}
