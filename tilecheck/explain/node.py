"""The nodes of the loop-nest tree `tilecheck explain` draws, and how their loops' values read.

Apart from `tree` (which builds the nodes from the kernel model) because the drawings (text,
SVG, HTML) read nodes without building any.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilecheck.core.types import Diagnostic
from tilecheck.tilelang.model import Kernel, Loop, Request
from tilecheck.tilelang.queries import factory_call_text
from tilecheck.tilelang.values import Constness, PyConst, PyValue, TirExpr, Value


def build_label(kernel: Kernel, number: int) -> str:
    """`make(block_M=128)`: the factory call that built `kernel`; `build N` outside a factory."""
    return factory_call_text(kernel) or f"build {number}"


@dataclass
class Node:
    kind: str  # "kernel", "loop", "if", "while", "block", "branch" (then/else of an undecided `if`)
    title: str
    line: int  # where it is reported (a macro's call site for inlined items)
    column: int  # 1-based
    details: list[str] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lines: tuple[int, int] | None = None  # source line range, when not inlined
    certain: bool = True
    copies: int = 1
    marked: bool = False
    loop_kind: str | None = None  # a LoopKind value, for loops
    pipeline: str | None = None  # the pipeline request, e.g. "num_stages=3"
    verdict: str | None = None  # what the selected backend does with the request
    source_line: int | None = None  # where an inlined item is written (in its macro)
    written: tuple[str | None, int, int] | None = None  # an inlined item's file (None: this one), lines
    # A kernel's shared-memory layout per target class, as numbers (`explain.shared_memory.records`),
    # one list per build: (the build's label, None for a single build; its records).
    shared_memory: list[tuple[str | None, list[dict[str, object]]]] | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "title": self.title,
            "line": self.line,
            "column": self.column,
            "details": self.details,
            "certain": self.certain,
            "copies": self.copies,
            "marked": self.marked,
            "loop_kind": self.loop_kind,
            "pipeline": self.pipeline,
            "verdict": self.verdict,
            "source_line": self.source_line,
            "diagnostics": [
                {
                    "line": d.span.line,
                    "column": d.span.column + 1,
                    "code": d.code,
                    "grade": d.grade.value,
                    "severity": d.severity.value,
                    "message": d.message,
                    "related": [
                        {"line": r.span.line, "column": r.span.column + 1, "message": r.message}
                        for r in d.related
                    ],
                }
                for d in self.diagnostics
            ],
            "children": [child.as_json() for child in self.children],
        } | (
            {"shared_memory": [{"build": label, "targets": found} for label, found in self.shared_memory]}
            if self.shared_memory is not None
            else {}
        )


# -- describing values -------------------------------------------------------------------------


def describe_extent(value: Value | None, text: str | None) -> str:
    shown = f"`{text}`" if text else "?"
    if isinstance(value, PyConst) and type(value.value) is int:
        return (
            f"{value.value} (constant)"
            if text in (None, str(value.value))
            else f"{shown} = {value.value} (constant)"
        )
    if isinstance(value, PyValue):
        return f"{shown} (constant: a Python int)" if value.is_int else f"{shown} (unknown)"
    if isinstance(value, TirExpr):
        if value.constness is Constness.CONST:
            return f"{shown} (constant)"
        if value.constness is Constness.SYMBOLIC:
            names = ", ".join(sorted({var.name for var in value.uses}))
            return f"{shown} (symbolic{': ' + names if names else ''})"
    return f"{shown} (unknown)"


def describe_pipeline(loop: Loop) -> str | None:
    from tilecheck.backends import describe_request

    request = loop.pipeline
    if request is None:
        return None
    if request.state is Request.REQUESTED:
        depth = f", depth {request.depth}" if request.depth is not None else ""
        positional = " (positional num_stages)" if request.num_stages_positional else ""
        return f"pipeline: requested{positional}: {describe_request(request)}{depth}"
    if request.state is Request.UNKNOWN:
        return "pipeline: unknown (a schedule value tilecheck cannot evaluate)"
    return "pipeline: bare (serial-like)"
