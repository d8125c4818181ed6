"""`junit`: JUnit XML, the test report GitLab (`artifacts:reports:junit`), Jenkins and most CI
systems show.

One `<testsuite>` per file with findings; each diagnostic is a `<testcase>` (name: code and
position, classname: the file, `file` and `line` attributes). Errors and warnings are
`<failure>`s; notes (optimization findings, which never fail a run) are passing test cases that
carry the note in `<system-out>`. A clean run is one passing test case, as ruff writes it.
Characters XML 1.0 cannot carry (control characters from the checked source) become U+FFFD.
In a notebook the name gives the cell and the line counted in it, as `line` does.
"""

from __future__ import annotations

import re
from itertools import groupby
from typing import TextIO
from xml.etree import ElementTree

from tilecheck.core.types import Diagnostic
from tilecheck.report import Run, display_path, fails, headline, shown_line, where

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def _details(diagnostic: Diagnostic) -> str:
    lines = [headline(diagnostic), *(f"note: {note}" for note in diagnostic.notes)]
    lines += [f"help: {diagnostic.help}"] if diagnostic.help else []
    return _text("\n".join(lines))


def _case(suite: ElementTree.Element, diagnostic: Diagnostic, path: str) -> bool:
    """Add one test case; True when it is a failure."""
    span = diagnostic.span
    case = ElementTree.SubElement(
        suite,
        "testcase",
        name=_text(f"{diagnostic.code} at {where(diagnostic.path, span, diagnostic.cell)}"),
        classname=_text(path),
        file=_text(path),
        line=str(shown_line(span, diagnostic.cell)),
    )
    if fails(diagnostic):
        failure = ElementTree.SubElement(
            case, "failure", message=_text(diagnostic.message), type=diagnostic.code
        )
        failure.text = _details(diagnostic)
        return True
    ElementTree.SubElement(case, "system-out").text = _details(diagnostic)
    return False


def document(run: Run) -> ElementTree.Element:
    root = ElementTree.Element("testsuites", name="tilecheck")
    total = failed = 0
    for path, found in groupby(run.diagnostics, key=lambda d: display_path(d.path)):
        diagnostics = list(found)
        suite = ElementTree.SubElement(root, "testsuite", name=_text(path))
        failures = sum(_case(suite, diagnostic, path) for diagnostic in diagnostics)
        suite.attrib.update(tests=str(len(diagnostics)), failures=str(failures), errors="0", skipped="0")
        total, failed = total + len(diagnostics), failed + failures
    if not run.diagnostics:
        suite = ElementTree.SubElement(
            root, "testsuite", name="tilecheck", tests="1", failures="0", errors="0", skipped="0"
        )
        ElementTree.SubElement(suite, "testcase", name="All checks passed", classname="tilecheck")
        total = 1
    root.attrib.update(tests=str(total), failures=str(failed), errors="0")
    return root


def render(run: Run, out: TextIO) -> None:
    tree = ElementTree.ElementTree(document(run))
    ElementTree.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    tree.write(out, encoding="unicode")
    out.write("\n")
