"""Output formats. Each module renders a run's diagnostics; columns become 1-based here."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilecheck.core import meta
from tilecheck.core.meta import Problem
from tilecheck.core.types import Diagnostic, Grade, NotebookCell, Severity, Span

if TYPE_CHECKING:
    from tilecheck.core.catalogue import RuleEntry
    from tilecheck.lint.coverage import Coverage

OUTPUT_FORMATS = ("full", "concise", "grouped", "json", "json-lines", "sarif", "github", "gitlab", "junit")


@dataclass
class Run:
    """Everything a reporter needs about one run."""

    diagnostics: list[Diagnostic]  # sorted
    sources: dict[str, str]  # path -> text, for excerpts
    files_checked: int
    rules: tuple[RuleEntry, ...] = ()  # the rules that were enabled for some file
    fixed: int = 0  # diagnostics fixed by --fix
    unsafe_fixes: bool = False  # unsafe fixes count as applicable
    show_fix_hint: bool = True  # say how many are fixable (after --fix: only the unsafe ones left)
    successful: bool = True  # no internal error
    fixes: list[Diagnostic] = field(default_factory=list)  # what --fix applied, for --show-fixes
    show_fixes: bool = False
    coverage: dict[str, Coverage] = field(default_factory=dict)  # path -> what the model saw, per file
    fix_hints: bool = True  # the command can fix (`lower` cannot: no `[*]`, no "fixable with")
    color: bool = False  # ANSI colours (a terminal; `--color`, NO_COLOR, FORCE_COLOR)
    quiet: bool = False  # the diagnostics only: no summary line (`-q`)

    def covered(self) -> list[tuple[str, Coverage, bool]]:
        """(path, coverage, some kernel code was not modeled) for each file that has kernel code:
        a kernel or loop modeled, or a TL006 note; sorted by displayed path."""
        unmodeled = {d.path for d in self.diagnostics if meta.is_problem(d, Problem.UNMODELED_KERNEL_CODE)}
        rows = [
            (path, counts, path in unmodeled)
            for path, counts in self.coverage.items()
            if not counts.empty or path in unmodeled
        ]
        return sorted(rows, key=lambda row: display_path(row[0]))


def display_path(path: str) -> str:
    """A path as a line of text shows it: `data_path`, with the control characters a file name
    may hold escaped (`a\\nb.py` for a newline), so that a name never splits or repaints a
    line-oriented report."""
    return escape_controls(data_path(path))


# C0 and C1 controls, DEL, and the line and paragraph separators `str.splitlines` breaks at.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """`text` with each control character as its escape (`\\n`, `\\t`, `\\x1b`, `\\u2028`)."""

    def escape(match: re.Match[str]) -> str:
        char = match[0]
        return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")

    return _CONTROLS.sub(escape, text)


def data_path(path: str) -> str:
    """Paths relative to the working directory when they are inside it, as valid Unicode: the
    bytes of a name that are not UTF-8 are shown as U+FFFD (as ruff shows them), so no report
    writes invalid UTF-8 or fails to encode. Machine formats (JSON, GitLab, GitHub's `file=`)
    carry it as it is; text reports show `display_path`."""
    if path.startswith("<"):
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:
        relative = ".."
    return printable(path if relative.startswith("..") else relative)


def printable(text: str) -> str:
    """`text` with the undecodable bytes of a file name (surrogate escapes) as U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "replace")
    return text


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else ('es' if word.endswith('x') else 's')}"


def counts(diagnostics: list[Diagnostic]) -> str:
    """`2 errors, 1 warning, 3 notes` (only the severities present)."""
    found = {severity: 0 for severity in Severity}
    for diagnostic in diagnostics:
        found[diagnostic.severity] += 1
    words = ((Severity.ERROR, "error"), (Severity.WARNING, "warning"), (Severity.INFO, "note"))
    return ", ".join(plural(found[severity], word) for severity, word in words if found[severity])


# ANSI SGR codes, as ruff colours its report.
BOLD, RED, YELLOW, CYAN, BLUE, GREEN = "1", "31", "33", "36", "34", "32"
LEVEL_COLOURS = {Severity.ERROR: RED, Severity.WARNING: YELLOW, Severity.INFO: CYAN}


def paint(text: str, color: bool, *codes: str) -> str:
    """`text` in the SGR `codes` when `color`; unchanged otherwise (and when empty)."""
    if not color or not text or not codes:
        return text
    return f"\x1b[{';'.join(codes)}m{text}\x1b[0m"


def fails(diagnostic: Diagnostic) -> bool:
    """Errors and warnings fail a run; notes (optimization findings) never do."""
    return diagnostic.severity is not Severity.INFO and diagnostic.grade is not Grade.OPTIMIZATION


def summary(run: Run) -> str:
    """The closing lines: what was found (or `All checks passed!`), what was fixed, what is
    fixable; empty with `-q` (ruff's "print diagnostics, but nothing else")."""
    if run.quiet:
        return ""
    files = len({d.path for d in run.diagnostics})
    fixed = fixed_summary(run)
    if not run.diagnostics:
        return fixed + paint("All checks passed!", run.color, BOLD, GREEN)
    text = fixed + paint(f"Found {counts(run.diagnostics)} in {plural(files, 'file')}.", run.color, BOLD)
    hint = fix_hint(run)
    return text + ("\n" + hint if hint else "")


def closing(run: Run) -> str:
    """The summary as the last lines of a text report (nothing with `-q`)."""
    text = summary(run)
    return text + "\n" if text else ""


def fixed_summary(run: Run) -> str:
    """`Fixed 2 diagnostics.`, or with --show-fixes what was fixed in which file (as ruff lists it)."""
    if not run.fixed:
        return ""
    if not run.show_fixes or not run.fixes:
        return f"Fixed {plural(run.fixed, 'diagnostic')}.\n"
    lines = [f"Fixed {plural(run.fixed, 'diagnostic')}:"]
    by_file: dict[str, dict[tuple[str, str], int]] = {}
    for diagnostic in run.fixes:
        rules = by_file.setdefault(display_path(diagnostic.path), {})
        rules[(diagnostic.code, diagnostic.rule)] = rules.get((diagnostic.code, diagnostic.rule), 0) + 1
    for path in sorted(by_file):
        lines.append(f"- {path}:")
        for (code, name), count in sorted(by_file[path].items()):
            lines.append(f"    {count} x {code} ({name})")
    return "\n".join(lines) + "\n"


def fix_hint(run: Run) -> str:
    """`[*] 2 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).`

    After --fix only the unsafe fixes that were held back are left to mention.
    """
    if not run.fix_hints:
        return ""
    safe = sum(1 for d in run.diagnostics if d.fix is not None and (d.fix.safe or run.unsafe_fixes))
    hidden = sum(1 for d in run.diagnostics if d.fix is not None and not d.fix.safe and not run.unsafe_fixes)
    if not run.show_fix_hint:
        return f"{plural(hidden, 'unsafe fix')} available with `--unsafe-fixes`." if hidden else ""
    text = ""
    if safe:
        option = "`--fix --unsafe-fixes`" if run.unsafe_fixes else "`--fix`"
        text = f"[*] {safe} fixable with {option}"
    if hidden:
        more = f"{plural(hidden, 'unsafe fix')} available with `--fix --unsafe-fixes`"
        text = f"{text} ({more})" if text else "No fixes available (" + more + ")"
    return text + "." if text else ""


def location(diagnostic: Diagnostic, color: bool = False) -> str:
    return where(diagnostic.path, diagnostic.span, diagnostic.cell, color)


def where(path: str, span: Span, cell: NotebookCell | None = None, color: bool = False) -> str:
    """`k.py:3:5`, or in a notebook `k.ipynb:cell 2:3:5` (the line counted in the cell, as ruff)."""
    shown = paint(display_path(path), color, BOLD)
    if cell is None:
        return f"{shown}:{span.line}:{span.column + 1}"
    return f"{shown}:cell {cell.number}:{cell.line(span.line)}:{span.column + 1}"


def shown_line(span: Span, cell: NotebookCell | None = None) -> int:
    return span.line if cell is None else cell.line(span.line)


def headline(diagnostic: Diagnostic, color: bool = False) -> str:
    """`k.py:9:22: error: TL101 [semantic] message`: severity first, so that warnings and notes stand out."""
    grade = diagnostic.grade.value
    word = paint(level(diagnostic), color, BOLD, LEVEL_COLOURS[diagnostic.severity])
    code = paint(diagnostic.code, color, BOLD, LEVEL_COLOURS[diagnostic.severity])
    return f"{location(diagnostic, color)}: {word}: {code} [{grade}] {diagnostic.message}"


def level(diagnostic: Diagnostic) -> str:
    """error / warning / note: optimization findings are never errors."""
    return {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}[diagnostic.severity]
