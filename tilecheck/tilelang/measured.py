"""What the warp-specialised layouts were measured with (tilecheck.tilelang.warp_specialized):
a kernel outside it is not sized. Each check names the first construct not measured."""

from __future__ import annotations

from tilecheck.source import python_ast
from tilecheck.tilelang.model import Kernel, Loop, Stmt, StmtKind, walk
from tilecheck.tilelang.shared_memory import TargetClass

# The TileLang releases whose shared-memory layouts tools/oracle/smem measured byte for byte (both
# classes, the generated families); a size is proven for these only.
LAYOUT_RELEASES = ("0.1.14", "0.1.15")
PACKING_CONFIGS = ("shared_memory_reuse", "aggressive_shared_memory_merge")  # tl.disable_..., tl.enable_...
WARP_SPECIALIZATION_CONFIGS = (
    "warp_specialized",
    "tma_lower",
)  # tl.disable_warp_specialized, tl.disable_tma_lower


def opts_out(source: str, target_class: TargetClass = TargetClass.WARP_SPECIALIZED) -> bool:
    """Whether a file may change the class's layout with a pass config anywhere in it: shared
    memory reuse off or aggressive merging on (either class); warp specialisation or TMA off."""
    keys = PACKING_CONFIGS + (
        WARP_SPECIALIZATION_CONFIGS if target_class is TargetClass.WARP_SPECIALIZED else ()
    )
    return any(word in source for key in keys for word in (key, key.upper()))


def has_pass_configs(kernel: Kernel) -> bool:
    import libcst as cst

    found = False

    class Keywords(cst.CSTVisitor):
        def visit_Arg(self, node: cst.Arg) -> None:
            nonlocal found
            found |= node.keyword is not None and node.keyword.value == "pass_configs"

    for node in (kernel.top, kernel.node):
        for decorator in getattr(node, "decorators", ()):
            decorator.visit(Keywords())
    return found


BUFFER_OPERANDS = {"copy": 2, "gemm": 3, "clear": 1, "fill": 1}  # the leading operands that are buffers
MEASURED_CALLS = frozenset(BUFFER_OPERANDS)
MEASURED_STATEMENTS = frozenset({StmtKind.STORE, StmtKind.EVAL, StmtKind.BIND})
STATEMENT_WORDS = {
    StmtKind.UNKNOWN: "a statement tilecheck cannot see into",
    StmtKind.IF: "a runtime `if`",
    StmtKind.WHILE: "a `while` loop",
    StmtKind.BLOCK: "a `with` block",
    StmtKind.MACRO_BIND: "a macro's expression argument",
}


def unmeasured_construct(kernel: Kernel) -> str | None:
    """The first construct the layouts were not measured with: another TileLang call (a
    schedule annotation, `T.func_attr`, an atomic, ...), a keyword on `T.copy` / `T.gemm`
    (`annotations=`, `transpose_B=`, ...), a loop annotation, an `if`, a block."""
    for item, _ in walk(kernel.body):
        if isinstance(item, Loop):
            if item.pipeline is not None and item.pipeline.annotations is not None:
                return "a loop's `annotations=`"
            continue
        if not isinstance(item, Stmt) or item.kind is StmtKind.UNKNOWN:
            continue  # an unknown statement: the layouts' own check says why it is not sized
        if item.kind not in MEASURED_STATEMENTS:
            return STATEMENT_WORDS.get(item.kind, f"a `{item.kind.value}` statement")
        if item.kind is StmtKind.EVAL and not item.calls:
            return "an expression statement tilecheck cannot resolve"
        for call in item.calls:
            if call.api not in MEASURED_CALLS:
                return f"`T.{call.api}`"
            if None in call.operands[: BUFFER_OPERANDS[call.api]]:
                return f"an operand of `T.{call.api}` tilecheck cannot resolve"
            if call.api in ("copy", "gemm") and unmeasured_keywords(call.api, call.site.node):
                return f"a keyword of `T.{call.api}`"
    return None


def unmeasured_keywords(api: str, node: object) -> bool:
    """Keywords other than a literal `transpose_A=` / `transpose_B=` of `T.gemm` (measured: the
    operand tiles are swizzled by their rows either way)."""
    import libcst as cst

    if not isinstance(node, cst.Call):
        return True
    for arg in node.args:
        if arg.keyword is None:
            continue
        literal = isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False")
        if not (api == "gemm" and arg.keyword.value in ("transpose_A", "transpose_B") and literal):
            return True
    return False


def keywords(node: object) -> set[str]:
    import libcst as cst

    if not isinstance(node, cst.Call):
        return set()
    return {a.keyword.value for a in node.args if a.keyword is not None}


def threads(launch: object) -> int | None:
    import libcst as cst  # here: importing the rules must not import libcst

    assert isinstance(launch, cst.Call)
    for argument in launch.args:
        if argument.keyword is not None and argument.keyword.value == "threads":
            value = argument.value
            if not isinstance(value, cst.Integer):
                return None
            # the literal's value (0x80 too), through the one locked parser
            evaluated = python_ast.literal_eval(value.value)
            return evaluated if isinstance(evaluated, int) else None
    return None
