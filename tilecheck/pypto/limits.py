"""What bounds a lowering: the stage factor, the predicted size of the unrolled copies, and
the statements that cannot be copied into stages (loop exits, `del` of the loop variable)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from tilecheck.pypto.loops import LoopPlan
from tilecheck.tilelang.syntax import suites

if TYPE_CHECKING:
    from tilecheck.pypto.codegen import Codegen

# Limits on what lowering may write: past them a loop is left as it is (TL491), so a large
# `stage=` or many large loops cannot exhaust memory or time, and the output stays a file Python
# can compile.
MAX_STAGE = 64
MAX_LOWERED_CHARS = 2_000_000  # the predicted size of one loop's unrolled copies, and of the file
# Copies are predicted from the body's text; each copy's names and indices are a little longer
# (`t` becomes `t_12`, `i` becomes `i + 3`): a quarter more covers that, so the output stays
# below the cap when the prediction does.
COPY_ALLOWANCE = (5, 4)
TOO_DEEP = "it is nested too deeply to lower (Python's recursion limit)"


@dataclass
class LoweredSize:
    """A lowered loop's predicted size: `original` characters now, at most `chars` lowered,
    `multiplier` copies of its body."""

    loop: cst.For
    multiplier: int
    original: int
    chars: int

    def growth(self) -> int:
        """How many characters lowering adds to the text of the loop."""
        return self.chars - self.original


def predicted_size(
    loop: LoopPlan,
    node: cst.For,
    body: list[cst.BaseStatement],
    inner: list[LoweredSize],
    codegen: Codegen,
    indent: int,
    file_chars: int,
) -> LoweredSize | str:
    """How large lowering `loop` (whose body holds the lowered loops `inner`, and is indented by
    `indent` characters) will be, predicted before anything is generated, so 6 nested `stage=8`
    loops are refused at once instead of after writing 36 MB; the reason for refusing when the
    prediction exceeds the cap for one loop, or when the file (`file_chars` characters as
    lowered so far) would exceed it."""
    step = loop.step.value if loop.step.is_int else None
    factor = loop.factor
    if not step or factor is None or factor > MAX_STAGE:
        return LoweredSize(node, 1, 0, 0)  # the lowering leaves it and says why: no growth
    copies = copy_count(loop, factor)
    multiplier = copies * max([1, *(size.multiplier for size in inner)])
    inner_growth = sum(size.growth() for size in inner)
    scale, part = COPY_ALLOWANCE
    # The loop's own text is its body and a header line: counting only the body makes the
    # predicted growth a little larger, and saves writing the loop once more.
    original = code_size(body, codegen, indent)
    chars = copies * (original + inner_growth) * scale // part
    if chars > MAX_LOWERED_CHARS:
        return (
            f"its unrolled copies would be up to about {chars:,} characters, more than the "
            f"{MAX_LOWERED_CHARS:,} `tilecheck lower` writes for one loop"
        )
    size = LoweredSize(node, multiplier, original, chars)
    lowered_file = file_chars + size.growth() - inner_growth
    if lowered_file > MAX_LOWERED_CHARS:
        return (
            f"the lowered file would be up to about {lowered_file:,} characters with it, more than "
            f"the {MAX_LOWERED_CHARS:,} `tilecheck lower` writes for one file"
        )
    return size


def copy_count(loop: LoopPlan, factor: int) -> int:
    """How many copies of the body lowering `loop` makes."""
    if loop.is_static:
        main_iters, rest = divmod(loop.trip_count(), factor)
        return (factor if main_iters else 0) + rest
    return factor + factor * (factor - 1) // 2  # the main loop, then the unroll_rem cascade


def code_size(statements: list[cst.BaseStatement], codegen: Codegen, indent: int) -> int:
    """The length of `statements` written indented by `indent` characters (at most: blank lines
    are not indented). The writer is the splice's, whose texts are memoized, so measuring a loop
    costs little more than writing it once; its own indentation would defeat that memo."""
    text = codegen.statements(statements, "")
    return max(1, len(text) + text.count("\n") * indent)


NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef)


def deleted_names(statements: list[cst.BaseStatement]) -> set[str]:
    """The plain names `del` removes in `statements` (outside nested functions and classes)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Del):
            targets: list[cst.CSTNode] = [node.target]
            while targets:
                target = targets.pop()
                if isinstance(target, cst.Name):
                    found.add(target.value)
                elif isinstance(target, (cst.Tuple, cst.List)):
                    targets.extend(element.value for element in target.elements)
            continue
        if isinstance(node, (*NESTED_SCOPES, cst.BaseExpression)):
            continue
        stack.extend(statement_children(node))
    return found


def escaping_statement(statements: list[cst.BaseStatement]) -> str | None:
    """`break`, `continue` or `return` when one in `statements` would leave the loop they form.

    An inner loop owns the `break`/`continue` of its body (not those of its `else:`); nested
    functions and classes own everything. Only statements are walked (these keywords never sit
    inside an expression), with an explicit stack, so deep expressions cost nothing.
    """
    stack: list[tuple[cst.CSTNode, bool]] = [(statement, True) for statement in reversed(statements)]
    while stack:
        node, loop_exits = stack.pop()
        if isinstance(node, cst.Return):
            return "return"
        if loop_exits and isinstance(node, cst.Break):
            return "break"
        if loop_exits and isinstance(node, cst.Continue):
            return "continue"
        if isinstance(node, (*NESTED_SCOPES, cst.BaseExpression)):
            continue
        if isinstance(node, (cst.For, cst.While)):
            stack.append((node.body, False))
            if node.orelse is not None:
                stack.append((node.orelse, loop_exits))
            continue
        stack.extend((child, loop_exits) for child in reversed(statement_children(node)))
    return None


def statement_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements and suites directly inside `node`, without libcst's costly `children`
    (which visits every expression too)."""
    if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
        return list(node.body)
    if isinstance(node, (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase)):
        return [node.body]
    if isinstance(node, cst.Match):
        return list(node.cases)
    if isinstance(node, cst.BaseCompoundStatement):
        return list(suites(node))
    return []
