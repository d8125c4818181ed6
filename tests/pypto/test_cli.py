"""`tilecheck lower` as a command: outputs, reports, reading, configuration and exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.pypto.helpers import program, run_lower_command
from tilecheck.cli.main import main

GOOD = program("for i in pl.pipeline(0, 2, 1, stage=2):\n    x = i\n")
LOWERED = program("for i in pl.pipeline(0, 2, 2, stage=1):\n    x = i\n    x_1 = i + 1\n")
BAD = program("for i in pl.pipeline(8):\n    x = i\n")
NESTED = program("for i in pl.pipeline(4, stage=2):\n    for j in pl.pipeline(4, stage=2):\n        x = j\n")


def test_default_prints_the_lowered_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    assert run_lower_command(["lower", str(path)]) == (0, LOWERED, "")
    assert path.read_text() == GOOD


def test_diff_prints_a_unified_diff(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    code, out, _ = run_lower_command(["lower", "--diff", str(path)])
    assert code == 1  # as `check --diff`: there is something to apply
    assert run_lower_command(["lower", "--diff", "--exit-zero", str(path)])[0] == 0
    assert out.splitlines()[2:] == [
        "@@ -3,5 +3,6 @@",
        " ",
        " @pl.function",
        " def f(a, b, n, s, s0, t0, out):",
        "-    for i in pl.pipeline(0, 2, 1, stage=2):",
        "+    for i in pl.pipeline(0, 2, 2, stage=1):",
        "         x = i",
        "+        x_1 = i + 1",
    ]


def test_output_file_and_its_deprecated_alias(tmp_path):
    path, target = tmp_path / "k.py", tmp_path / "lowered.py"
    path.write_text(GOOD)
    assert run_lower_command(["lower", str(path), "-o", str(target)]) == (0, "", "")
    assert target.read_text() == LOWERED and path.read_text() == GOOD
    target.unlink()
    assert run_lower_command(["lower", str(path), "--output-file", str(target)]) == (0, "", "")
    assert target.read_text() == LOWERED
    target.unlink()
    code, out, err = run_lower_command(["lower", str(path), "--output", str(target)])
    assert (code, out) == (0, "")
    assert err == "tilecheck lower: warning: `--output` is deprecated; use `-o/--output-file`\n"
    assert target.read_text() == LOWERED


def test_diagnostics_are_reported_as_check_reports_them(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(BAD)
    code, out, err = run_lower_command(["lower", "--write", str(path)])
    assert (code, out) == (1, "")
    assert err == (
        f"{path}:6:14: error: TL401 [semantic] pl.pipeline() requires stage= (positive integer)\n"
        "  |\n"
        "6 |     for i in pl.pipeline(8):\n"
        "  |              ^^^^^^^^^^^^^^\n"
        "  = help: Use pl.pipeline(stop, stage=F).\n"
        "\n"
        "Found 1 error in 1 file.\n"
    )
    assert path.read_text() == BAD


@pytest.mark.parametrize("output_format", ["json", "json-lines"])
def test_json_output(tmp_path, output_format):
    path = tmp_path / "k.py"
    path.write_text(BAD)
    code, out, err = run_lower_command(["lower", str(path), "--output-format", output_format])
    assert (code, out) == (1, "")
    [found] = json.loads(err) if output_format == "json" else [json.loads(line) for line in err.splitlines()]
    assert {key: found[key] for key in ("path", "line", "column", "code", "rule", "grade", "severity")} == {
        "path": str(path),
        "line": 6,
        "column": 14,
        "code": "TL401",
        "rule": "pypto-pipeline-missing-stage",
        "grade": "semantic",
        "severity": "error",
    }
    assert found["help"] == "Use pl.pipeline(stop, stage=F)."


def test_sarif_and_github_output(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(BAD)
    code, _, err = run_lower_command(["lower", str(path), "--output-format", "sarif"])
    [result] = json.loads(err)["runs"][0]["results"]
    assert (code, result["ruleId"]) == (1, "TL401")
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    code, _, err = run_lower_command(["lower", str(path), "--output-format", "github"])
    assert code == 1 and err.startswith(f"::error title=tilecheck (TL401),file={path},line=6,col=14,")


def test_clean_json_report_is_an_empty_list(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    assert run_lower_command(["lower", str(path), "--output-format", "json"]) == (0, LOWERED, "[]\n")


def test_coding_cookie_and_byte_order_mark_are_honoured(tmp_path):
    path = tmp_path / "latin1.py"
    source = "# -*- coding: latin-1 -*-\n" + program('for i in pl.pipeline(0, 2, 1, stage=2):\n    x = "é"\n')
    path.write_bytes(source.encode("latin-1"))
    code, out, err = run_lower_command(["lower", str(path)])
    assert (code, err) == (0, "")
    assert out.endswith('        x = "é"\n        x_1 = "é"\n')
    assert run_lower_command(["lower", "--write", str(path)]) == (0, "", "")
    assert path.read_bytes() == out.encode("latin-1")  # written back in its own encoding
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    assert run_lower_command(["lower", str(bom)]) == (0, LOWERED, "")


def test_undecodable_file_is_the_engines_diagnostic(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"x = '\xff'\n")
    code, out, err = run_lower_command(["lower", str(path), "--output-format", "concise"])
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}:1:6: error: TL002 [meta] Cannot decode file as utf-8: invalid start byte")


def test_unparsable_file_reports_where_the_error_is(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("x = 1\ndef f(:\n")
    code, out, err = run_lower_command(["lower", str(path), "--output-format", "concise"])
    assert (code, out) == (1, "")
    assert err == f"{path}:2:7: error: TL001 [meta] Syntax error: invalid syntax\nFound 1 error in 1 file.\n"


def test_configuration_backend_select_ignore_and_per_file_ignores(tmp_path):
    (tmp_path / "nested.py").write_text(NESTED)
    (tmp_path / "bad.py").write_text(BAD)
    config = tmp_path / "tilecheck.toml"
    config.write_text('backend = "cuda-sm80"\n')
    nested, bad = str(tmp_path / "nested.py"), str(tmp_path / "bad.py")
    code, out, err = run_lower_command(["lower", nested, "--output-format", "concise"])
    assert (code, out) == (1, "")
    assert err.startswith(f"{nested}:7:18: error: TL419 [contract] Backend cuda-sm80 does not support nested")
    # A contract finding the user ignores (or suppresses) no longer stops the lowering.
    code, out, err = run_lower_command(["lower", nested, "--ignore", "TL419"])
    assert (code, err) == (0, "") and "stage=1" in out
    config.write_text(
        'backend = "cuda-sm80"\n[per-file-ignores]\n"nested.py" = ["pypto-nested-pipeline-unsupported"]\n'
    )
    assert run_lower_command(["lower", nested])[0] == 0
    config.write_text('backend = "cuda-sm80"\nselect = ["TL1"]\n')
    assert run_lower_command(["lower", nested])[0] == 0
    assert run_lower_command(["lower", nested, "--isolated"])[0] == 0  # no backend: nesting is fine
    config.write_text('backend = "cuda-sm80"\n[severity]\ncontract = "warning"\n')
    code, out, err = run_lower_command(["lower", nested, "--output-format", "concise"])
    assert code == 1 and "stage=1" in out and "Found 1 warning in 1 file." in err
    # A semantic error stops the lowering even when hidden: PyPTO rejects the program anyway.
    code, out, err = run_lower_command(["lower", bad, "--ignore", "TL401", "--output-format", "concise"])
    assert (code, out) == (1, "")
    assert err.startswith(
        f"{bad}:6:14: warning: TL491 [meta] this pipeline loop was left as it is: TL401 (pypto-pipeline-missing-stage) "
        "is ignored or suppressed here, but PyPTO rejects the program: pl.pipeline() requires stage="
    )


def test_suppression_comments(tmp_path):
    path = tmp_path / "k.py"
    inner = "for j in pl.pipeline(4, stage=2):"
    path.write_text(NESTED.replace(inner, inner + "  # tilecheck: ignore[TL419]"))
    code, out, err = run_lower_command(["lower", "--backend", "cuda-sm80", str(path)])
    assert (code, err) == (0, "") and out.count("stage=1") == 3  # the outer loop and two inner copies
    path.write_text(NESTED)
    assert run_lower_command(["lower", "--backend", "cuda-sm80", str(path)])[0] == 1


def test_backend_gate(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(NESTED)
    assert run_lower_command(["lower", "--backend", "cuda-sm80", str(path)])[0] == 1
    assert run_lower_command(["lower", "--backend", "ascend", str(path)])[0] == 0
    assert run_lower_command(["lower", str(path)])[0] == 0


def test_write_attempts_every_file_and_exits_with_the_worst_outcome(tmp_path):
    first, broken, last = tmp_path / "a.py", tmp_path / "latin1.py", tmp_path / "c.py"
    first.write_text(GOOD)
    broken.write_bytes(b"x = '\xff'\n")  # no coding cookie: not UTF-8
    last.write_text(GOOD)
    code, out, err = run_lower_command(
        [
            "lower",
            "--write",
            str(first),
            str(broken),
            str(last),
            "--output-format",
            "concise",
        ]
    )
    assert (code, out) == (1, "")
    assert [line.split(": ")[2].split()[0] for line in err.splitlines()[:-1]] == ["TL002"]
    assert first.read_text() == LOWERED and last.read_text() == LOWERED
    os.chmod(tmp_path, 0o500)  # the files can no longer be replaced
    try:
        first.write_text(GOOD) if os.access(first, os.W_OK) else None
        code, _, err = run_lower_command(["lower", "--write", str(first), str(last)])
    finally:
        os.chmod(tmp_path, 0o700)
    if os.geteuid() != 0:  # root writes anyway
        assert code == 2 and err.count("tilecheck lower: cannot write") >= 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["lower", "--backend", "nope", "{path}"], "unknown backend `nope`"),
        (["lower", "{path}", "{path}", "-o", "x.py"], "-o/--output-file takes exactly one FILE"),
        (["lower", "{path}", "--output-format", "xml"], "unknown output format `xml`"),
        (["lower", "{path}", "--select", "TL4O1"], "Unknown rule selector: `TL4O1`"),
    ],
)
def test_usage_errors_exit_2(tmp_path, argv, message):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    argv = [arg.format(path=path) for arg in argv]
    code, out, err = run_lower_command(argv)
    assert code == 2 and out == "" and message in err


def test_main_and_module_entry_point(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(GOOD)
    assert main(["lower", "--diff", "--write", str(path)]) == 2
    completed = subprocess.run(
        [sys.executable, "-m", "tilecheck", "lower", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0 and completed.stdout == LOWERED
