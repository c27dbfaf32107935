"""A small walker from our construct schemas (``parsers/``) to a neutral description both emitters render.

The schemas are the only definition of the formats: the Kaitai ``.ksy`` and the ImHex ``.hexpat`` are
generated from what this walker reads off the construct objects, never written by hand a second time.

What the walker understands (everything our schemas use):

* ``Struct`` (named subcons; ``"name" / X * "doc"`` gives the field name and its doc string),
* ``FormatField`` integers (``Int8sb`` ... ``Int64ub``; the format string gives width, sign and byte order),
* ``Bytes(n)``, ``Prefixed(<int>, GreedyBytes)`` (a length field, then that many bytes),
* ``IfThenElse(cond, a, b)`` with ``this.x & FLAG`` / ``this.x == CONST`` conditions,
* ``Const(value, <int>)``, ``Array(this._.param, subcon)`` (``this._.x`` makes ``x`` a parameter of the type),
* ``BitStruct`` with ``BitsInteger``, ``Flag`` and ``Enum`` bit fields,
* adapters: our ``Utf8Text`` (the bytes are UTF-8 text), ``IpAddress`` (raw address bytes) and
  ``PropertiesAdapter`` (UTF-8 ``name 0x01 value 0x02`` pairs) become notes on the field; any other adapter,
  ``Rebuild`` and ``Renamed`` are looked through.

Anything else raises :class:`TemplateError` naming the construct, so a schema change that the templates cannot
follow fails the template tests instead of producing a wrong template.

Type names come from the module-level variable a schema is bound to (``MessageRecord`` -> ``message_record``);
type docs from the docstring under that assignment in the parsers module (read with ``ast``).
"""

from __future__ import annotations

import ast
import inspect
import operator
import re
from dataclasses import dataclass, field
from types import ModuleType

import construct
from construct.expr import BinExpr, Path

from parsers.adapters import IpAddress, Utf8Text
from parsers.commitlog import PropertiesAdapter


class TemplateError(ValueError):
    """A construct the walker cannot express in the template languages."""


# -- the neutral description ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A value named by a path: a sibling field (``up == 0``) or a parameter of the type (``up == 1``)."""

    name: str
    up: int = 0


@dataclass(frozen=True)
class Bin:
    op: str  # "&", "|", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*"
    lhs: Expr
    rhs: Expr

    @property
    def is_bool(self) -> bool:
        return self.op in ("==", "!=", "<", "<=", ">", ">=")


Expr = int | Ref | Bin


@dataclass(frozen=True)
class Int:
    size: int  # bytes
    signed: bool
    big_endian: bool = True


@dataclass(frozen=True)
class Bits:
    width: int
    flag: bool = False  # a one-bit boolean
    enum: str | None = None  # name of an enum in Module.enums


@dataclass(frozen=True)
class Raw:
    """A fixed or computed number of bytes."""

    length: Expr


@dataclass(frozen=True)
class LengthPrefixed:
    """A length field, then that many bytes (text when ``text``)."""

    length: Int
    text: bool


@dataclass(frozen=True)
class TypeRef:
    name: str
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Choice:
    """``IfThenElse``: ``then`` when ``cond`` holds (non-zero), else ``otherwise``."""

    cond: Expr
    then: Spec
    otherwise: Spec


@dataclass(frozen=True)
class Repeat:
    count: Expr
    item: Spec


@dataclass(frozen=True)
class ConstInt:
    value: int
    of: Int


Spec = Int | Bits | Raw | LengthPrefixed | TypeRef | Choice | Repeat | ConstInt


@dataclass(frozen=True)
class Field:
    name: str
    spec: Spec
    doc: str = ""
    notes: tuple[str, ...] = ()  # what an adapter adds (e.g. "UTF-8 text")

    @property
    def full_doc(self) -> str:
        return "; ".join(p for p in (self.doc, *self.notes) if p)


@dataclass(frozen=True)
class TypeDef:
    name: str  # snake_case
    fields: tuple[Field, ...]
    doc: str = ""
    params: tuple[str, ...] = ()  # names the type needs from whoever contains it (``this._.x``)
    bits: bool = False  # a bit-level type (BitStruct)
    source: str = ""  # "parsers.commitlog.MessageRecord", for comments

    @property
    def size(self) -> int | None:
        """Fixed size in bytes, or None when it depends on the data."""
        total = 0
        for f in self.fields:
            n = _spec_size(f.spec, self)
            if n is None:
                return None
            total += n
        return total // 8 if self.bits else total


@dataclass
class Module:
    """Every type reachable from some root schemas, children before parents, plus the enums they use."""

    types: dict[str, TypeDef] = field(default_factory=dict)
    enums: dict[str, dict[int, str]] = field(default_factory=dict)

    def type(self, name: str) -> TypeDef:
        return self.types[name]


def _spec_size(spec: Spec, owner: TypeDef) -> int | None:
    if isinstance(spec, Int):
        return spec.size
    if isinstance(spec, ConstInt):
        return spec.of.size
    if isinstance(spec, Bits):
        return spec.width
    if isinstance(spec, Raw) and isinstance(spec.length, int):
        return spec.length
    return None


# -- naming ---------------------------------------------------------------------------------------------------


def snake(name: str) -> str:
    """``MessageRecord`` -> ``message_record``; ``Host4`` -> ``host4``."""
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    return s.lower()


def camel(name: str) -> str:
    """``message_record`` -> ``MessageRecord``."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def attribute_docs(module: ModuleType) -> dict[str, str]:
    """The string literal right after each module-level assignment (how our parsers document a schema)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return {}
    docs: dict[str, str] = {}
    body = tree.body
    for node, nxt in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)):
            docs[node.targets[0].id] = " ".join(nxt.value.value.split())
    return docs


def named_schemas(*modules: ModuleType) -> dict[int, tuple[str, str, str]]:
    """id(schema) -> (variable name, qualified source name, docstring) for every module-level construct."""
    found: dict[int, tuple[str, str, str]] = {}
    for module in modules:
        docs = attribute_docs(module)
        for name, value in vars(module).items():
            if isinstance(value, construct.Construct) and not name.startswith("_"):
                found.setdefault(id(value), (name, f"{module.__name__}.{name}", docs.get(name, "")))
    return found


# -- the walk -------------------------------------------------------------------------------------------------

_OPS = {
    operator.and_: "&", operator.or_: "|", operator.eq: "==", operator.ne: "!=", operator.lt: "<",
    operator.le: "<=", operator.gt: ">", operator.ge: ">=", operator.add: "+", operator.sub: "-",
    operator.mul: "*",
}
_FLAG_TYPE = type(construct.Flag)  # construct binds these names to singleton instances
_GREEDY_BYTES_TYPE = type(construct.GreedyBytes)
_INT_FORMATS = {"b": (1, True), "B": (1, False), "h": (2, True), "H": (2, False), "i": (4, True),
                "I": (4, False), "l": (4, True), "L": (4, False), "q": (8, True), "Q": (8, False)}


def _path(p: Path) -> tuple[str, ...]:
    parts = []
    node = p
    while node is not None:
        fld = vars(node)["_Path__field"]
        if fld is not None:
            parts.append(fld)
        node = vars(node)["_Path__parent"]
    return tuple(reversed(parts))


class Walker:
    """Walks construct schemas into a :class:`Module`. ``names`` maps schema ids to their module-level names."""

    def __init__(self, names: dict[int, tuple[str, str, str]]):
        self.names = names
        self.module = Module()

    # public -------------------------------------------------------------------------------------------------

    def add(self, schema: construct.Construct, name: str | None = None) -> str:
        """Walk a Struct (or BitStruct) schema into a type; returns the type name."""
        target = self._unwrap_renamed(schema)[0]
        known = self.names.get(id(schema)) or self.names.get(id(target))
        type_name = name or (snake(known[0]) if known else None)
        if type_name is None:
            raise TemplateError("a root schema needs a name")
        return self._struct(target, type_name, known[2] if known else "", known[1] if known else "")

    # internals ----------------------------------------------------------------------------------------------

    @staticmethod
    def _unwrap_renamed(c: construct.Construct) -> tuple[construct.Construct, str | None, str]:
        name, doc = None, ""
        while isinstance(c, construct.Renamed):
            name = name or c.name
            doc = doc or (c.docs or "")
            c = c.subcon
        return c, name, doc

    def _struct(self, c: construct.Construct, type_name: str, doc: str, source: str) -> str:
        if type_name in self.module.types:
            return type_name
        bits = False
        if isinstance(c, construct.Transformed) and getattr(c, "decodefunc", None) is construct.bytes2bits:
            bits, c = True, c.subcon  # BitStruct = Bitwise(Struct(...))
        if not isinstance(c, construct.Struct):
            raise TemplateError(f"{type_name}: expected a Struct, got {type(c).__name__}")
        fields: list[Field] = []
        params: list[str] = []
        for sub in c.subcons:
            inner, fname, fdoc = self._unwrap_renamed(sub)
            if fname is None:
                raise TemplateError(f"{type_name}: every field needs a name (got an anonymous {type(inner).__name__})")
            notes: list[str] = []
            spec = self._spec(inner, type_name, fname, notes, params, bits)
            fields.append(Field(fname, spec, fdoc, tuple(notes)))
        self.module.types[type_name] = TypeDef(type_name, tuple(fields), doc, tuple(params), bits, source)
        return type_name

    def _expr(self, e, params: list[str]) -> Expr:
        if isinstance(e, bool):
            return int(e)
        if isinstance(e, int):
            return e
        if isinstance(e, Path):
            parts = _path(e)
            if len(parts) == 1:
                return Ref(parts[0])
            if len(parts) == 2 and parts[0] == "_":
                if parts[1] not in params:
                    params.append(parts[1])
                return Ref(parts[1], up=1)
            raise TemplateError(f"path this.{'.'.join(parts)} reaches further than a parameter")
        if isinstance(e, BinExpr):
            op = _OPS.get(e.op)
            if op is None:
                raise TemplateError(f"operator {e.op} in {e!r}")
            return Bin(op, self._expr(e.lhs, params), self._expr(e.rhs, params))
        raise TemplateError(f"cannot express {e!r} ({type(e).__name__})")

    def _spec(self, c, owner: str, fname: str, notes: list[str], params: list[str], bits: bool) -> Spec:
        c, _, _ = self._unwrap_renamed(c)
        # adapters that change how the bytes read, not which bytes: a note on the field
        if isinstance(c, Utf8Text):
            notes.append("UTF-8 text")
            return self._spec(c.subcon, owner, fname, notes, params, bits)
        if isinstance(c, IpAddress):
            notes.append("IP address bytes, network order")
            return self._spec(c.subcon, owner, fname, notes, params, bits)
        if isinstance(c, PropertiesAdapter):
            notes.append("RocketMQ reads it as a map; empty names or values are dropped")
            return self._spec(c.subcon, owner, fname, notes, params, bits)
        if isinstance(c, construct.Enum):
            width = self._bits_width(c.subcon, owner, fname)
            enum_name = f"{owner}_{fname}"
            self.module.enums[enum_name] = {int(v): str(k).lower() for k, v in c.encmapping.items()}
            return Bits(width, enum=enum_name)
        if isinstance(c, construct.Const):
            inner = self._spec(c.subcon, owner, fname, notes, params, bits)
            if not isinstance(inner, Int) or not isinstance(c.value, int):
                raise TemplateError(f"{owner}.{fname}: only integer constants are supported")
            return ConstInt(c.value, inner)
        if isinstance(c, construct.Rebuild | construct.Adapter):
            return self._spec(c.subcon, owner, fname, notes, params, bits)
        if bits:
            if isinstance(c, _FLAG_TYPE):
                return Bits(1, flag=True)
            return Bits(self._bits_width(c, owner, fname))
        if isinstance(c, construct.FormatField):
            order, code = c.fmtstr[0], c.fmtstr[1:]
            if code not in _INT_FORMATS:
                raise TemplateError(f"{owner}.{fname}: format {c.fmtstr!r} is not an integer")
            size, signed = _INT_FORMATS[code]
            return Int(size, signed, order != "<")
        if isinstance(c, construct.Bytes):
            return Raw(self._expr(c.length, params))
        if isinstance(c, construct.Prefixed):
            length = self._spec(c.lengthfield, owner, fname, [], params, bits)
            payload = c.subcon
            text = False
            if isinstance(payload, Utf8Text):
                text, payload = True, payload.subcon
            if not isinstance(length, Int) or not isinstance(payload, _GREEDY_BYTES_TYPE) or c.includelength:
                raise TemplateError(f"{owner}.{fname}: only Prefixed(<int>, GreedyBytes) is supported")
            if "UTF-8 text" in notes:
                text = True
                notes.remove("UTF-8 text")
            return LengthPrefixed(length, text)
        if isinstance(c, construct.IfThenElse):
            cond = self._expr(c.condfunc, params)
            then = self._branch(c.thensubcon, owner, fname, notes, params)
            otherwise = self._branch(c.elsesubcon, owner, fname, notes, params)
            return Choice(cond, then, otherwise)
        if isinstance(c, construct.Array):
            count = self._expr(c.count, params)
            return Repeat(count, self._spec(c.subcon, owner, fname, notes, params, bits))
        if isinstance(c, construct.Struct | construct.Transformed):
            return TypeRef(self._child(c, owner, fname))
        raise TemplateError(f"{owner}.{fname}: {type(c).__name__} is not supported by the template walker")

    def _branch(self, c, owner: str, fname: str, notes: list[str], params: list[str]) -> Spec:
        branch_notes: list[str] = []
        spec = self._spec(c, owner, fname, branch_notes, params, False)
        if isinstance(spec, LengthPrefixed) and "UTF-8 text" in branch_notes:
            spec = LengthPrefixed(spec.length, True)
            branch_notes.remove("UTF-8 text")
        for n in branch_notes:
            if n not in notes:
                notes.append(n)
        return spec

    def _child(self, c, owner: str, fname: str) -> str:
        known = self.names.get(id(c))
        if known:
            return self._struct(c, snake(known[0]), known[2], known[1])
        return self._struct(c, f"{owner}_{fname}", "", "")

    @staticmethod
    def _bits_width(c, owner: str, fname: str) -> int:
        if isinstance(c, construct.BitsInteger) and isinstance(c.length, int) and not c.signed:
            return c.length
        raise TemplateError(f"{owner}.{fname}: bit fields must be unsigned BitsInteger of a fixed width")


def walk(roots: list[tuple[construct.Construct, str | None]], *modules: ModuleType) -> Module:
    """Walk each (schema, type name or None for its variable name) into one Module."""
    walker = Walker(named_schemas(*modules))
    for schema, name in roots:
        walker.add(schema, name)
    return walker.module


# -- expression helpers shared by the emitters ------------------------------------------------------------------


def render_expr(e: Expr, ref, *, hex_masks: bool = False, top: bool = True) -> str:
    """An expression in C-like syntax (Kaitai and ImHex both read it); ``ref`` renders a :class:`Ref`.

    Every inner binary expression is parenthesised, so no operator-precedence table is needed.
    """
    if isinstance(e, int):
        return str(e)
    if isinstance(e, Ref):
        return ref(e)
    lhs = render_expr(e.lhs, ref, hex_masks=hex_masks, top=False)
    rhs = render_expr(e.rhs, ref, hex_masks=hex_masks, top=False)
    if hex_masks and e.op in ("&", "|") and isinstance(e.rhs, int) and e.rhs >= 0:
        rhs = f"0x{e.rhs:X}"
    text = f"{lhs} {e.op} {rhs}"
    return text if top else f"({text})"


def as_condition(e: Expr, ref, **kw) -> str:
    """A boolean condition: construct's IfThenElse takes any non-zero value as true."""
    if isinstance(e, Bin) and e.is_bool:
        return render_expr(e, ref, **kw)
    return f"{render_expr(e, ref, top=False, **kw)} != 0"
