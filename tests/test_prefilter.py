"""The prefilter (`tilecheck.lint.prefilter`) changes no result: wherever it skips a file, the full
path finds nothing either; elsewhere the report is byte-identical. On every fixture, every
source file of tilecheck itself, and the shared TileLang corpus (read as data, when present)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tilecheck.app.workspace import Workspace, check_task
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.engine import lint_source
from tilecheck.lint.prefilter import cannot_have_findings
from tilecheck.report import Run
from tilecheck.report.json import render

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent.parent / "shared" / "corpus" / "tilelang"
if not CORPUS.is_dir():
    CORPUS = ROOT.parent / "shared" / "corpus" / "tilelang"


def as_json(analysis: FileAnalysis) -> str:
    out = io.StringIO()
    sources = {analysis.path: analysis.text} if analysis.text is not None else {}
    render(Run(sorted(analysis.diagnostics, key=lambda d: d.sort_key()), sources, 1), out)
    return out.getvalue()


def compare(paths: list[Path], everything: bool) -> int:
    """Assert identity on `paths`; with `everything` false, only where the prefilter skips (elsewhere
    both paths run the same code). Returns how many files the prefilter skipped."""
    workspace = Workspace()
    skipped = 0
    for path in paths:
        name = str(path)
        data = path.read_bytes()
        settings = workspace.file_settings(name)
        skips = cannot_have_findings(data, settings) is not None
        skipped += skips
        if skips or everything:
            fast = check_task((name, settings, data))
            full = lint_source(data, name, settings).detached()
            assert as_json(fast) == as_json(full), name
            assert fast.text == full.text, name
            assert not skips or full.diagnostics == [], name
    return skipped


def test_identical_on_every_fixture():
    paths = sorted((ROOT / "fixtures").rglob("*.py"))
    assert len(paths) > 40
    compare(paths, everything=True)


def test_identical_on_tilechecks_own_sources():
    paths = sorted((ROOT / "tilecheck").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    skipped = compare(paths, everything=False)
    assert skipped >= 5  # most import tilecheck, a suppression word: only plain Python is skipped


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared TileLang corpus is not here")
def test_identical_on_the_shared_corpus():
    paths = sorted(CORPUS.rglob("*.py"))
    skipped = compare(paths, everything=False)
    assert skipped >= 30  # 37 of its 613 files: no kernel word, no suppression word


@pytest.mark.parametrize(
    "source",
    [
        b"import tilelang.language as T\n",  # a kernel word
        b"x = 1  # noqa: E501\n",  # a suppression word
        b"def f(:\n",  # a syntax error: the full path reports it
        b"x = 1\x00\n",  # a null byte
        b"# -*- coding: cp500 -*-\n",  # not ASCII-compatible
        b"x = " + b"-" * 2500 + b"y\n",  # a long line that hides nesting the engine refuses (TL004)
        b"\xff\xfe\n",  # undecodable
    ],
)
def test_what_the_prefilter_leaves_to_the_full_path(source):
    settings = Workspace().file_settings("k.py")
    assert cannot_have_findings(source, settings) is None


def test_plain_python_is_skipped_with_its_text():
    settings = Workspace().file_settings("k.py")
    source = "\ufeffdef add(a, b):\r\n    return a + b\r\n".encode()
    assert cannot_have_findings(source, settings) == "def add(a, b):\r\n    return a + b\r\n"


def test_a_plugin_rule_disables_the_prefilter(tmp_path, monkeypatch):
    (tmp_path / "my_rules.py").write_text(
        "from tilecheck import Rule, Grade\n\n\nclass AnyFile(Rule):\n"
        '    """Reports every file."""\n\n    CODE = "XY001"\n    NAME = "any-file"\n'
        "    GRADE = Grade.SEMANTIC\n    HELP = 'h'\n\n    def check(self, ctx):\n        pass\n"
    )
    (tmp_path / "pyproject.toml").write_text('[tool.tilecheck]\nplugins = ["my_rules"]\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TILECHECK_ALLOW_PLUGINS", "1")
    try:
        settings = Workspace(cwd=str(tmp_path)).file_settings(str(tmp_path / "k.py"))
    except Exception as error:  # the plugin loader's rules for malformed rules are not this test's subject
        pytest.skip(f"plugin did not load: {error}")
    assert any(rule.CODE == "XY001" for rule in settings.rules)
    assert cannot_have_findings(b"x = 1\n", settings) is None
