"""Jupyter notebooks: code cells are checked with positions as ruff reports them (`k.ipynb:cell
N:line:col`), `--fix` writes the notebook back formatted as it was, directory walks include
`.ipynb` (and what `extend-include` adds), suppressions work in cells, IPython syntax is masked,
and a file that is not a notebook tilecheck can read is never a silent pass."""

from __future__ import annotations

import json

import pytest

from tests.support import run
from tilecheck.core.codec import decode, encode
from tilecheck.source.notebook import Notebook, read_notebook

IMPORTS = "import tilelang.language as T\n%matplotlib inline"
KERNEL = (
    "@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32")):\n'
    "    with T.Kernel(1, threads=128) as bx:\n"
    '        loc = T.alloc_local((64,), "float32")\n'
    "        for i in T.Parallel(64):\n"
    "            !echo inside\n"
    "            loc[i] = A[i, 0]"
)


def cell(kind: str, source: str, as_lines: bool = True) -> dict:
    lines = source.splitlines(keepends=True) if as_lines else source
    entry: dict = {"cell_type": kind, "metadata": {}, "source": lines}
    if kind == "code":
        entry = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines}
    return entry


def notebook(*cells: dict, language: str = "python") -> dict:
    return {
        "cells": list(cells),
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def kernel_notebook() -> dict:
    # cell 1: imports and a line magic; cell 2: Markdown; cell 3: the kernel (TL104 at its line 7)
    return notebook(cell("code", IMPORTS), cell("markdown", "# The kernel — ünïcode"), cell("code", KERNEL))


def write(path, document: dict, **dump) -> bytes:
    options = {"indent": 1, "ensure_ascii": False, **dump}
    data = (json.dumps(document, **options) + "\n").encode()
    path.write_bytes(data)
    return data


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.tilecheck]\n")
    return tmp_path


def test_a_code_cell_finding_is_reported_at_its_cell_line_and_column(project, capsys):
    write(project / "k.ipynb", kernel_notebook())
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.status == 1
    assert done.out.splitlines()[0] == (
        "k.ipynb:cell 3:7:13: error: TL104 [semantic] Local buffer `loc` is indexed by T.Parallel loop"
        " variable `i`; local buffers are thread-private and do not take part in parallel layout inference"
    )
    full = run(capsys, "k.ipynb", "--no-cache").out
    assert full.splitlines()[1:4] == ["  |", "7 |             loc[i] = A[i, 0]", "  |             ^^^^^^"]
    assert " ::: k.ipynb:cell 3:5:18" in full.splitlines()
    (record,) = json.loads(run(capsys, "k.ipynb", "--no-cache", "--output-format", "json").out)
    # lines of the code cells' Python text, and the cell with the lines counted in it
    assert (record["line"], record["column"], record["code"]) == (9, 13, "TL104")
    assert record["cell"] == {"number": 3, "line": 7, "end_line": 7, "first_line": 3}
    assert [item["cell"]["line"] for item in record["related"]] == [5, 4]


def test_ipython_syntax_is_masked_line_for_line(project, capsys):
    magics = notebook(
        cell("code", "import tilelang.language as T\n!pip install tilelang\nfiles = !ls\n%time x = 1\nT?"),
        cell("code", "%%bash\nfor f in *; do echo $f; done"),
        cell("code", KERNEL),
    )
    write(project / "k.ipynb", magics)
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 3:7:13: error: TL104 ")
    assert "TL001" not in done.out and len(done.out.splitlines()) == 3  # the finding, the summary, the hint


@pytest.mark.parametrize(
    ("source", "masked"),
    [
        ("%time x\ny = (1\n%2)\n!ls", {0, 3}),  # `%2` inside brackets is the modulo operator
        ('s = """\n%not magic\n"""\n%time 1', {3}),  # inside a string: text
        ("x = 1 + \\\n%2\n%who", {2}),  # after a backslash: the same logical line
        ("s = 'a#'  \\\n%3", set()),  # a `#` in a string starts no comment
        ("x = 1  # (\n%time y", {1}),  # a bracket in a comment opens nothing
        ("s = 'it''s'\n%time z", {1}),
    ],
)
def test_only_a_line_that_starts_a_logical_line_can_be_ipython_syntax(source, masked):
    found = read_notebook(json.dumps(notebook(cell("code", source))).encode(), "k.ipynb")
    assert isinstance(found, Notebook)
    assert set(found.cells[0].masked) == masked


def test_a_percent_line_inside_an_expression_is_checked_as_python(project, capsys):
    write(project / "k.ipynb", notebook(cell("code", "%time start = 1\ny = (7\n     % 2)\nz = !ls")))
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert (done.status, done.out) == (0, "All checks passed!\n")  # no TL001 from a half-masked expression


def test_suppressions_work_in_cells(project, capsys):
    suppressed = kernel_notebook()
    source = suppressed["cells"][2]["source"]
    source[-1] = source[-1] + "  # tilecheck: ignore[TL104]"
    suppressed["cells"][0]["source"][0] = "import tilelang.language as T  # tilecheck: ignore[TL101]\n"
    write(project / "k.ipynb", suppressed)
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0] == (
        "k.ipynb:cell 1:1:32: warning: TL901 [meta] Unused suppression: no `TL101` diagnostic to suppress"
    ), done.out
    assert "TL104" not in done.out


def test_fix_writes_the_notebook_back_as_it_was_formatted(project, capsys):
    for dump in (
        {"indent": 1},
        {"indent": 2, "ensure_ascii": True},
        {"indent": 4},
        {"indent": None, "separators": (",", ":")},
    ):
        path = project / "k.ipynb"
        before = write(path, kernel_notebook(), **dump)
        done = run(capsys, "k.ipynb", "--no-cache", "--fix", "--unsafe-fixes")
        assert done.status == 0, done.out + done.err
        after = path.read_bytes()
        expected = before.replace(b"T.alloc_local((64,)", b"T.alloc_fragment((64,)")
        assert after == expected, dump  # only the fixed line: magics, Markdown, key order, newline kept
        assert b"!echo inside" in after and b"%matplotlib inline" in after


def test_fix_keeps_a_notebook_without_a_trailing_newline_and_with_string_sources(project, capsys):
    document = notebook(cell("code", IMPORTS, as_lines=False), cell("code", KERNEL, as_lines=False))
    path = project / "k.ipynb"
    before = json.dumps(document, indent=1).encode()
    path.write_bytes(before)
    assert run(capsys, "k.ipynb", "--no-cache", "--fix", "--unsafe-fixes").status == 0
    assert path.read_bytes() == before.replace(b"T.alloc_local((64,)", b"T.alloc_fragment((64,)")


def test_a_notebook_whose_formatting_cannot_be_reproduced_is_not_written(project, capsys):
    path = project / "k.ipynb"
    text = json.dumps(kernel_notebook(), indent=1).replace('"cells": [', '"cells":   [')
    path.write_text(text)
    done = run(capsys, "k.ipynb", "--no-cache", "--fix", "--unsafe-fixes")
    assert done.status == 2
    assert (
        "its JSON formatting could not be reproduced exactly, so it was not rewritten" in done.err + done.out
    )
    assert path.read_text() == text


def test_a_directory_walk_includes_notebooks_and_extend_include(project, capsys):
    write(project / "k.ipynb", kernel_notebook())
    (project / "script.pyw").write_text("x = 1\n")
    listed = run(capsys, ".", "--show-files").out.split()
    assert [name.rsplit("/", 1)[-1] for name in listed] == ["k.ipynb"]
    (project / "pyproject.toml").write_text('[tool.tilecheck]\nextend-include = ["*.pyw"]\n')
    listed = run(capsys, ".", "--show-files").out.split()
    assert [name.rsplit("/", 1)[-1] for name in listed] == ["k.ipynb", "script.pyw"]
    done = run(capsys, ".", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 3:7:13: error: TL104 ")


def test_a_bad_extend_include_value_is_a_configuration_error(project, capsys):
    (project / "pyproject.toml").write_text('[tool.tilecheck]\nextend-include = "*.pyw"\n')
    done = run(capsys, ".", "--show-files")
    assert done.status == 2 and "extend-include" in done.err


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"{", "TL001 [meta] Cannot read notebook: not valid JSON (Expecting property name"),
        (
            b'{"cells": [{"cell_type": "code", "source": "\xff"}]}',
            "TL002 [meta] Cannot decode notebook as UTF-8",
        ),
        (b'{"nbformat": 4}', "TL001 [meta] Cannot read notebook: not a Jupyter notebook (no `cells` list)"),
        (
            json.dumps(notebook(cell("code", "x <- 1"), language="R")).encode(),
            "TL001 [meta] Cannot read notebook: a R notebook, not a Python one",
        ),
        (
            b'{"cells": [{"cell_type": "code", "source": 3}]}',
            "TL001 [meta] Cannot read notebook: cell 1 has a malformed `source`",
        ),
    ],
)
def test_a_file_that_is_not_a_readable_notebook_is_never_a_silent_pass(project, capsys, data, expected):
    (project / "k.ipynb").write_bytes(data)
    for walked in ("k.ipynb", "."):
        done = run(capsys, walked, "--no-cache", "--output-format", "concise")
        assert done.status == 1
        assert done.out.splitlines()[0].startswith(f"k.ipynb:1:1: error: {expected}"), done.out


def test_a_cached_result_keeps_the_cells(project, capsys):
    write(project / "k.ipynb", kernel_notebook())
    first = run(capsys, "k.ipynb", "--output-format", "concise").out
    again = run(capsys, "k.ipynb", "--output-format", "concise").out
    assert first == again and first.startswith("k.ipynb:cell 3:7:13: ")


def test_the_codec_round_trips_a_cell():
    data = (json.dumps(kernel_notebook()) + "\n").encode()
    parsed = read_notebook(data, "k.ipynb")
    from tilecheck.core.registry import builtin_rules
    from tilecheck.lint.engine import check_source

    analysis = check_source(parsed.text, "k.ipynb", builtin_rules())
    (diagnostic,) = [parsed.locate(d) for d in analysis.diagnostics]
    assert decode(encode(diagnostic)) == diagnostic
    assert diagnostic.cell is not None and (
        diagnostic.cell.number,
        diagnostic.cell.line(diagnostic.span.line),
    ) == (3, 7)


def test_stdin_named_as_a_notebook_is_checked_and_fixed_as_one(project, capsys, monkeypatch):
    import io
    import sys

    data = (json.dumps(kernel_notebook(), indent=1) + "\n").encode()

    def stdin(*args):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        return run(capsys, "check", "-", "--stdin-filename", "k.ipynb", "--no-cache", *args)

    checked = stdin("--output-format", "concise")
    assert checked.status == 1 and checked.out.startswith("k.ipynb:cell 3:7:13: error: TL104 ")
    fixed = stdin("--fix", "--unsafe-fixes")
    assert fixed.out == data.replace(b"T.alloc_local((64,)", b"T.alloc_fragment((64,)").decode()


def test_lower_says_it_does_not_read_notebooks(project, capsys):
    write(project / "k.ipynb", kernel_notebook())
    done = run(capsys, "lower", "k.ipynb")
    assert done.status == 1
    assert "k.ipynb:1:1: error: TL003 [meta] Cannot read file: it is a notebook;" in done.out + done.err
    assert '"cells"' not in done.out  # its JSON is never echoed as the lowered source


def test_findings_left_after_a_fix_that_removed_a_line_are_in_the_rewritten_cells(project, capsys):
    document = kernel_notebook()
    document["cells"][0]["source"].insert(0, "# tilecheck: ignore[TL101]\n")  # unused: --fix removes the line
    before = write(project / "k.ipynb", document)
    done = run(capsys, "k.ipynb", "--no-cache", "--fix", "--output-format", "concise")
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 3:7:13: error: TL104 "), done.out
    assert (project / "k.ipynb").read_bytes() == before.replace(
        b'    "# tilecheck: ignore[TL101]\\n",\n', b"", 1
    )


def test_an_indented_line_in_a_cell_magic_is_masked_at_column_0(project, capsys):
    shell = cell("code", "%%bash\nif true; then\n  echo hi\nfi")
    write(project / "k.ipynb", notebook(cell("code", IMPORTS), shell, cell("code", KERNEL)))
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 3:7:13: error: TL104 ")  # not TL001
    assert "TL001" not in done.out
    found = read_notebook((project / "k.ipynb").read_bytes(), "k.ipynb")
    assert isinstance(found, Notebook)
    assert found.text.splitlines()[2:6] == ["pass  # IPython syntax, masked"] * 4


@pytest.mark.parametrize("magic", ["%%time", "%%timeit -n 3", "%%capture out"])
def test_a_cell_magic_that_runs_python_has_its_body_checked_at_exact_positions(project, capsys, magic):
    # as ruff does: the body of `%%time`, `%%timeit`, `%%capture` runs in the kernel as Python
    write(
        project / "k.ipynb",
        notebook(cell("code", "import tilelang.language as T"), cell("code", f"{magic}\n{KERNEL}")),
    )
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.status == 1
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 2:8:13: error: TL104 ")
    assert "TL001" not in done.out


def nbformat3(document: dict) -> dict:
    """`document` as nbformat 3 wrote it: cells in a worksheet, a code cell's source in `input`."""
    cells = [
        {
            "cell_type": "code",
            "collapsed": False,
            "input": entry["source"],
            "language": "python",
            "outputs": [],
        }
        if entry["cell_type"] == "code"
        else entry
        for entry in document["cells"]
    ]
    return {"metadata": {"name": ""}, "nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": cells}]}


def test_an_nbformat_3_notebook_is_checked_and_fixed(project, capsys):
    path = project / "k.ipynb"
    before = write(path, nbformat3(kernel_notebook()))
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 3:7:13: error: TL104 ")
    assert run(capsys, "k.ipynb", "--no-cache", "--fix", "--unsafe-fixes").status == 0
    assert path.read_bytes() == before.replace(b"T.alloc_local((64,)", b"T.alloc_fragment((64,)")
    # worksheets in a notebook that does not say nbformat 3: not read as one
    path.write_text(json.dumps({"worksheets": [{"cells": []}], "metadata": {}}))
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0] == (
        "k.ipynb:1:1: error: TL001 [meta] Cannot read notebook: not a Jupyter notebook (no `cells` list)"
    )


def test_a_notebook_nested_too_deeply_is_tl004_as_a_deep_python_file(project, capsys):
    deep = '{"cells": [' + "[" * 100_000 + "]" * 100_000 + "]}"
    (project / "k.ipynb").write_text(deep)
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert (done.status, done.out.splitlines()[0]) == (
        1,
        "k.ipynb:1:1: error: TL004 [meta] Notebook is too deeply nested to read: its JSON nests more than 500 levels",
    )
    # outputs nested deep, but not too deep, are read (brackets inside strings do not count)
    nested = kernel_notebook()
    nested["cells"][0]["outputs"] = [
        {"data": {"text/plain": "[" * 1000}, "nest": json.loads("[" * 400 + "]" * 400)}
    ]
    write(project / "k.ipynb", nested)
    done = run(capsys, "k.ipynb", "--no-cache", "--output-format", "concise")
    assert done.out.splitlines()[0].startswith("k.ipynb:cell 3:7:13: error: TL104 ")
