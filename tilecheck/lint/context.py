"""What a rule sees while it checks one file: the parsed module, the kernel model, locations."""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from functools import cached_property
from typing import TypeVar, cast

import libcst as cst

from tilecheck.backends.profile import Profile
from tilecheck.core.rule import Rule
from tilecheck.core.types import Diagnostic, Fix, Related, Severity, Span
from tilecheck.lint.conditions import CONDITION_NOTE
from tilecheck.source import python_ast
from tilecheck.source.kernel_code import may_hold_pypto, may_hold_tilelang
from tilecheck.source.positions import Locator
from tilecheck.tilelang.frontend import analyze
from tilecheck.tilelang.imports import ImportTable
from tilecheck.tilelang.model import FileModel, Guard, Site
from tilecheck.tilelang.project import ProjectModules
from tilecheck.tilelang.reuse import KernelMemo
from tilecheck.tilelang.scope import ModelTooLarge
from tilecheck.tilelang.versions import VersionRange, has_checker, names

T = TypeVar("T")


class ModelError(Exception):
    """Building the kernel model failed (a bug in tilecheck's frontend model)."""


class ModelTooDeep(RecursionError):
    """Building the kernel model ran out of stack: the file nests too deeply (TL004), whichever
    rule asked for the model first."""


class _LazyTree:
    """CPython's tree of a source, parsed on the first call (None when CPython refuses it)."""

    def __init__(self, source: str, tree: ast.Module | None) -> None:
        self._source = source
        self._tree = tree
        self._known = tree is not None

    def __call__(self) -> ast.Module | None:
        if not self._known:
            self._known = True
            try:
                self._tree = python_ast.parse(self._source)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._tree = None
        return self._tree


class Context:
    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        backend: Profile | None = None,
        *,
        python_tree: ast.Module | None = None,
        kernels: KernelMemo | None = None,
        tilelang: VersionRange | None = None,
    ) -> None:
        """`python_tree` is CPython's tree of `source` when the caller built it already;
        `kernels` the kernels of the same document's earlier versions (`tilelang.reuse`);
        `tilelang` the TileLang releases checked against (default: the supported ones)."""
        self.path = path
        self.source = source
        self.module = module
        self.backend = backend
        self.tilelang = tilelang if tilelang is not None else VersionRange.default()
        # The locator shares the tree through its own holder, not through this context: a
        # context the locator refers back to is a cycle, which keeps both trees of every file
        # alive until the cyclic collector finds them (a cold run spent a sixth of its time there).
        self._python_tree = _LazyTree(source, python_tree)
        self.locator = Locator(module, source, self._python_tree)
        self.diagnostics: list[Diagnostic] = []
        self.rule: type[Rule] | None = None
        self._model: FileModel | None = None
        self._model_error: ModelError | None = None
        self._memo: dict[str, object] = {}
        self._locators: dict[str, Locator] = {}
        self._foreign_tops: dict[int, str] | None = None
        self._kernels = kernels

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """`compute()` once per file for every rule that asks under `key` (e.g. one analysis that
        several rules report from); the value lives as long as this context."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast("T", self._memo[key])  # stored under `key` by `compute`, which returned a T

    @property
    def python_tree(self) -> ast.Module | None:
        """CPython's tree of the source, parsed once per file (None when CPython refuses it)."""
        return self._python_tree()

    def pypto_diagnostics(self) -> list[Diagnostic]:
        """The PyPTO checks' findings, computed once per file for all the PyPTO rules (none, and
        nothing of the PyPTO machinery imported, in a file that cannot hold PyPTO code)."""
        if not may_hold_pypto(self.source):
            return []

        def check() -> list[Diagnostic]:
            from tilecheck.pypto.api import check_module

            return check_module(self.module, self.path, backend=self.backend)

        return self.memo("pypto", check)

    @cached_property
    def imports(self) -> ImportTable:
        """The file's module-level imports; in a file that may define kernels, imports of the
        project's own modules are followed (read, never imported) for this check only."""
        if may_hold_tilelang(self.source):
            return ProjectModules().imports_of(self.module, self.path, self.source)
        return ImportTable.from_module(self.module)

    @property
    def model(self) -> FileModel:
        """The TileLang kernel model, built once per file on first use.

        A crash while building it is raised once as `ModelError` and again (without rebuilding)
        to every later rule, so the engine reports it once instead of once per rule.
        """
        if self._model is None:
            if self._model_error is not None:
                raise self._model_error
            if not may_hold_tilelang(self.source):  # imports may also sit inside functions
                self._model = FileModel()
            else:
                try:
                    self._model = analyze(self.module, self.imports, self._kernels)
                except ModelTooLarge:
                    raise
                except RecursionError as error:
                    raise ModelTooDeep(str(error)) from error
                except MemoryError:
                    self._model_error = ModelError("the kernel model needs more memory than is available")
                    raise self._model_error from None
                except Exception as error:
                    self._model_error = ModelError(f"{type(error).__name__}: {error}")
                    raise self._model_error from error
        return self._model

    def for_header(self, node: cst.For, top: cst.CSTNode) -> Span:
        """From a `for` statement's start to the end of its iterable (a loop's header), without
        generating code when CPython's tree is at hand."""
        if self.module_of(top) is None:
            found = self.locator.for_header(node, top)
            if found is not None:
                return found
        statement = self.span(node, top)
        iterable = self.span(node.iter, top)
        return Span(statement.line, statement.column, iterable.end_line, iterable.end_column)

    def with_item(self, node: cst.BaseExpression, top: cst.CSTNode) -> Span:
        """Where the expression of a `with` item is (`T.Kernel(...)`), without generating code
        when CPython's tree is at hand."""
        if self.module_of(top) is None:
            found = self.locator.with_item(node, top)
            if found is not None:
                return found
        return self.span(node, top)

    def span(self, node: cst.CSTNode, top: cst.CSTNode, path: str | None = None) -> Span:
        """Where `node` is: in this file, or in the project module holding `top` (a macro
        inlined from it; `path` names that module when the caller knows it)."""
        path = path or self.module_of(top)
        if path is None or self._model is None or path not in self._model.modules:
            return self.locator.span(node, top)
        locator = self._locators.get(path)
        if locator is None:
            project = self._model.modules[path]
            assert project.module is not None  # only parsed modules hold inlined code
            locator = self._locators[path] = Locator(project.module, project.source)
        return locator.span(node, top)

    def module_of(self, top: cst.CSTNode) -> str | None:
        """The project module whose module-level statement `top` is; None for this file's."""
        if self._model is None or not self._model.modules:
            return None
        if self._foreign_tops is None:
            self._foreign_tops = {
                id(statement): path
                for path, project in self._model.modules.items()
                if project.module is not None
                for statement in project.module.body
            }
        return self._foreign_tops.get(id(top))

    def related(self, node: cst.CSTNode, top: cst.CSTNode, path: str | None, message: str) -> Related:
        """A secondary location, in this file or in the project module `path`."""
        return Related(self.span(node, top, path), message, path=path)

    def line_of(self, node: cst.CSTNode, top: cst.CSTNode) -> int:
        return self.span(node, top).line

    def text(self, node: cst.CSTNode, limit: int = 60) -> str:
        """Short one-line source text of a node, for messages."""
        text = " ".join(self.module.code_for_node(node).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def macro_note(self, site: Site) -> str:
        """`` (in macro `m`, line 7)`` for an item inlined from a macro, else ``""``."""
        if not site.origin:
            return ""
        inner = site.origin[-1]
        line = self.span(site.node, site.top, inner.path).line
        where = f"{self.display_path(inner.path)}, line" if inner.path else "line"
        return f" (in {inner.kind} `{inner.name}`, {where} {line})"

    def condition_note(self, when: tuple[Guard, ...]) -> str:
        """`` (when `use_tc` is false)`` for a finding that holds only in some branches of
        Python-level `if` statements tilecheck could not decide, else ``""``."""
        if not when:
            return ""
        parts = [f"`{self.text(guard.test, 40)}` is {'true' if guard.holds else 'false'}" for guard in when]
        return f"{CONDITION_NOTE}{' and '.join(parts)})"

    def display_path(self, path: str) -> str:
        """A project module's path relative to the checked file's folder when it is below it."""
        base = os.path.dirname(os.path.abspath(self.path))
        relative = os.path.relpath(path, base) if path.startswith(base + os.sep) else path
        return relative.replace(os.sep, "/")

    def report(
        self,
        site: Site,
        message: str,
        *,
        fix: Fix | None = None,
        notes: tuple[str, ...] = (),
        related: tuple[Related, ...] = (),
        severity: Severity | None = None,
        caused_by: tuple[str, Span] | None = None,
        help: str | None = None,
        data: tuple[tuple[str, int | str], ...] = (),
    ) -> None:
        span = self.span(site.report_node, site.report_top)
        self.report_at(
            span,
            message,
            fix=fix,
            notes=notes,
            related=related + self.macro_related(site),
            severity=severity,
            caused_by=caused_by,
            help=help,
            data=data,
        )

    def _checker_verdict(
        self, checker: str, message: str, severity: Severity | None
    ) -> tuple[str, Severity | None]:
        """A finding TileLang's `checker` makes is a note when a release in range lacks that checker."""
        versions = self.tilelang.versions
        lacking = [version for version in versions if not has_checker(version, checker)]
        if not lacking:
            return message, severity
        having = [version for version in versions if version not in lacking]
        if having:
            where = f"TileLang {names(having)} reject{'s' if len(having) == 1 else ''} it (`{checker}`)"
        else:
            where = f"no TileLang release in range has `{checker}`"
        lack = "lacks" if len(lacking) == 1 else "lack"
        return f"{message} ({where}; not proven for {names(lacking)}, which {lack} that check)", Severity.INFO

    def macro_related(self, site: Site) -> tuple[Related, ...]:
        """For an item inlined from a macro: the inner call sites and the item in the definition."""
        related = []
        for outer, inner in zip(site.origin, site.origin[1:], strict=False):
            message = f"`{outer.name}` calls {inner.kind} `{inner.name}` here"
            related.append(self.related(inner.call, inner.call_top, outer.path, message))
        if site.origin:
            inner = site.origin[-1]
            related.append(self.related(site.node, site.top, inner.path, f"in {inner.kind} `{inner.name}`"))
        return tuple(related)

    def report_at(
        self,
        span: Span,
        message: str,
        *,
        fix: Fix | None = None,
        notes: tuple[str, ...] = (),
        related: tuple[Related, ...] = (),
        severity: Severity | None = None,
        caused_by: tuple[str, Span] | None = None,
        help: str | None = None,
        data: tuple[tuple[str, int | str], ...] = (),
    ) -> None:
        """Report for the running rule; `severity` below the rule's own marks a finding that holds
        only under some backends when none is selected (configuration still overrides it)."""
        rule = self.rule
        assert rule is not None, "report() outside a rule"
        if rule.CHECKER is not None:
            message, severity = self._checker_verdict(rule.CHECKER, message, severity)
        self.diagnostics.append(
            Diagnostic(
                path=self.path,
                span=span,
                code=rule.CODE,
                rule=rule.NAME,
                grade=rule.GRADE,
                severity=severity or rule.severity(),
                message=message,
                help=help or rule.HELP or None,  # a rule may tailor its help to the cause
                fix=fix,
                notes=notes,
                related=related,
                caused_by=caused_by,
                data=data,
            )
        )
