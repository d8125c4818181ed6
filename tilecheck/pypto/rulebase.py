"""`PyptoRule`: what the PyPTO rules (`rules/pypto/`) share.

Each rule class is the one source of its code's name, grade, message, help and documentation:
the checks (`tilecheck.pypto.checks`) and the lowering emit findings by problem
(`pypto.problems`), and `tilecheck.pypto.findings` turns them into diagnostics through the rule
that `REPORTS` it. The checks run once per file for all the PyPTO rules; each reports its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from tilecheck.core.rule import Checklist, Rule
from tilecheck.core.types import Diagnostic, Span

if TYPE_CHECKING:
    from tilecheck.lint.context import Context

EXAMPLE_HEADER = (
    "import pypto.language as pl\n\n\n@pl.function\ndef kernel(a: pl.Tensor, n: pl.Scalar, s0: pl.Scalar):\n"
)

SEMANTIC = "Semantic: PyPTO rejects the program for every target."
CONTRACT = "Contract: a limitation of the current LowerPipelineLoops pass, not of the language."
_SIBLINGS = "Each loop is checked on its own; nesting does not change the answer."
_WRAPPERS = "`with pl.at(...)`, `if` and other loops around it do not change the answer."
_GENERATED = "Lowered loops carry `stage=1` and pass every check, so re-checking lowered code is clean."
_PROOF = "Proven: values tilecheck cannot resolve statically are never reported."


def example(body: str) -> str:
    """A rule example: `body` (indented by four spaces) inside a `@pl.function` kernel whose
    parameters `a` (a tensor), `n` and `s0` (runtime scalars) it may use."""
    return EXAMPLE_HEADER + body


def checklist(
    *,
    shape: str,
    smallest_invalid: str,
    closest_valid: str,
    first_pass: str,
    rewrite: str,
    grade: str = SEMANTIC,
    siblings: str = _SIBLINGS,
    neutral_wrappers: str = _WRAPPERS,
    generated_ir: str = _GENERATED,
    proof: str = _PROOF,
) -> Checklist:
    """The rule-design checklist with the answers every PyPTO loop rule shares as defaults."""
    return Checklist(
        grade=grade,
        shape=shape,
        smallest_invalid=smallest_invalid,
        closest_valid=closest_valid,
        siblings=siblings,
        neutral_wrappers=neutral_wrappers,
        generated_ir=generated_ir,
        proof=proof,
        first_pass=first_pass,
        rewrite=rewrite,
    )


class PyptoRule(Rule):
    """A PyPTO rule: `MESSAGE` is PyPTO's own error text, a `str.format` template over the
    values the check found (`{kind}`, `{keyword}`, ...)."""

    MODEL = "pypto"
    MESSAGE: ClassVar[str]

    @classmethod
    def help_for(cls, values: dict[str, object]) -> str | None:
        """The help line of one finding; rules whose help depends on what was found override it."""
        return cls.HELP or None

    @classmethod
    def diagnostic(
        cls, path: str, span: Span, values: dict[str, object], notes: tuple[str, ...] = ()
    ) -> Diagnostic:
        return Diagnostic(
            path=path,
            span=span,
            code=cls.CODE,
            rule=cls.NAME,
            grade=cls.GRADE,
            severity=cls.severity(),
            message=cls.MESSAGE.format(**values),
            help=cls.help_for(values),
            notes=notes,
        )

    def check(self, ctx: Context) -> None:
        # The checks run once per file for every PyPTO rule (`Context.pypto_diagnostics`), and
        # each diagnostic is built by its rule class already (message, tailored help).
        ctx.diagnostics.extend(d for d in ctx.pypto_diagnostics() if d.code == self.CODE)
