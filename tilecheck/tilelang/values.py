"""Abstract values of the kernel interpreter: what a Python name holds while TileLang builds IR.

The frontend executes the kernel body as Python; a name may hold a Python value (inlined as
a constant, never IR), a TIR variable (a loop variable, a Bind, a symbol), a TIR expression,
a buffer, or something tilecheck cannot know statically.
"""

from __future__ import annotations

import enum
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import libcst as cst

    from tilecheck.tilelang.model import Loop, Malformed
    from tilecheck.tilelang.scope import DefinedFunction


class Constness(enum.Enum):
    """Three-valued constness of a loop bound, as TileLang's IntImm test would see it."""

    CONST = "constant"  # folds to an integer at build time (IntImm)
    SYMBOLIC = "symbolic"  # proven to contain a TIR variable
    UNKNOWN = "unknown"  # cannot be decided statically

    def join(self, other: Constness) -> Constness:
        if Constness.SYMBOLIC in (self, other):
            return Constness.SYMBOLIC
        if Constness.UNKNOWN in (self, other):
            return Constness.UNKNOWN
        return Constness.CONST


class VarKind(enum.Enum):
    LOOP = "loop"  # the variable of a TIR For
    BIND = "bind"  # the variable of a Bind statement (assignment of a PrimExpr)
    SYMBOL = "symbol"  # T.dynamic, scalar parameters, block and thread indices


_var_ids = itertools.count()


@dataclass(eq=False)
class Var:
    """A TIR variable. `name` follows renames (`idx = i` renames `i` to `idx`)."""

    name: str
    kind: VarKind
    loop: Loop | None = None
    # For a Bind: the variables its value used, which the Bind hides from TileLang's checkers.
    hidden: frozenset[Var] = frozenset()
    ident: int = field(default_factory=lambda: next(_var_ids))

    def __repr__(self) -> str:
        return f"Var({self.name!r}, {self.kind.value})"


@dataclass(eq=False)
class Buffer:
    name: str
    scope: str  # "local", "local.fragment", "shared.dyn", "global", "local.var", ...
    node: cst.CSTNode | None = None  # the allocation call, for fixes
    shape: tuple[Value, ...] | None = None
    api: str | None = None  # "alloc_local", "alloc_fragment", "param", ...
    top: cst.CSTNode | None = None  # the module-level statement holding `node`, to locate it
    path: str | None = None  # the project file holding `node` (a macro from it); None: this file
    dtype: str | None = None  # the element type when it is a literal or a constant ("float16")

    @property
    def is_local(self) -> bool:
        return self.scope == "local"

    @property
    def is_fragment(self) -> bool:
        return self.scope.startswith("local.fragment")

    @property
    def is_var(self) -> bool:
        return self.scope == "local.var"


class Value:
    """Base of all abstract values."""

    __slots__ = ()


@dataclass(frozen=True, eq=False)
class PyConst(Value):
    """A Python value known statically (int, float, bool, str, None, tuple, list, dict)."""

    value: object


@dataclass(frozen=True, eq=False)
class PyValue(Value):
    """A Python value whose content is unknown (a factory parameter): never IR, never symbolic."""

    is_int: bool = False
    default: object = None  # the parameter's default, when it has a literal one
    dtype: str | None = None  # a TileLang dtype held in a name (`dtype = T.float16`)


@dataclass(frozen=True, eq=False)
class ModuleRef(Value):
    """A name bound by an import inside a function (`import tilelang.language as T`)."""

    qualified: str


@dataclass(frozen=True, eq=False)
class ApiChoice(Value):
    """One of several TileLang functions, chosen by a condition tilecheck cannot decide
    (`emit = T.atomic_max if op == "max" else T.atomic_min`): their qualified names."""

    qualified: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class InstanceValue(Value):
    """`self` (or `cls`) in a method: the literal attributes its class gives (`self.block_M`)."""

    attributes: dict[str, Value]


@dataclass(frozen=True, eq=False)
class PyCallable(Value):
    """A Python function defined in the checked file (a macro or a plain helper)."""

    function: DefinedFunction


@dataclass(frozen=True, eq=False)
class TirExpr(Value):
    """A PrimExpr. `uses` are the variables it syntactically contains after constant folding."""

    uses: frozenset[Var]
    constness: Constness
    var: Var | None = None  # set when the expression is exactly one variable

    @staticmethod
    def of_var(var: Var) -> TirExpr:
        return TirExpr(frozenset((var,)), Constness.SYMBOLIC, var)


@dataclass(frozen=True, eq=False)
class BufferValue(Value):
    buffer: Buffer


@dataclass(frozen=True, eq=False)
class RegionValue(Value):
    """A buffer slice such as `A[i, 0:4]` (a BufferRegion), or a whole buffer."""

    buffer: Buffer


@dataclass(frozen=True, eq=False)
class ShapeValue(Value):
    buffer: Buffer


@dataclass(frozen=True, eq=False)
class Unknown(Value):
    pass


@dataclass(frozen=True, eq=False)
class LoopVarList(Unknown):
    """The one `for` target of a multi-extent `T.Parallel(a, b)`: the list of its loop variables.

    It behaves like an unknown value; the evaluator records, in `malformed` (a model
    `Malformed`), the first place it is used as one index among others (`A[i, 0]`), where
    TileLang fails to build the kernel.
    """

    malformed: Malformed | None = None


UNKNOWN = Unknown()
PY_INT = PyValue(is_int=True)


def constness_of(value: Value) -> Constness:
    """How TileLang would see `value` used as a loop bound."""
    if isinstance(value, PyConst):
        return Constness.CONST if isinstance(value.value, int) else Constness.UNKNOWN
    if isinstance(value, PyValue):
        return Constness.CONST if value.is_int else Constness.UNKNOWN
    if isinstance(value, TirExpr):
        return value.constness
    return Constness.UNKNOWN


def int_value(value: Value) -> int | None:
    if isinstance(value, PyConst) and type(value.value) is int:
        return value.value
    return None
