"""`tilecheck explain` pictures: what the text tree draws under a diagnostic, HTML and SVG output,
and the HTML rendered by a real headless browser (Debian's `chromium`)."""

from __future__ import annotations

import shutil
import struct
import subprocess
import xml.etree.ElementTree as ElementTree
import zlib
from pathlib import Path

import pytest

from tests.support import run, write
from tilecheck.explain.text import LEGEND

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "examples" / "softmax_mistakes.py"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    write(tmp_path, {"s.py": DEMO.read_text()})
    return tmp_path


def explain(capsys, *args: str) -> str:
    outcome = run(capsys, "explain", *args, "--isolated")
    assert outcome.status == 0, outcome.err
    return outcome.out


# -- text -----------------------------------------------------------------------------------------


def test_text_draws_what_each_diagnostic_is_about(project, capsys):
    lines = explain(capsys, "s.py").splitlines()
    tl101 = next(i for i, line in enumerate(lines) if "error: TL101 [semantic] 22:26" in line)
    assert lines[tl101 + 1 : tl101 + 3] == [
        "│           ├─ line 20: for i in T.Parallel(block_M):  (the enclosing `T.Parallel` loop)",
        "│           └─ line 21: row_max[i] = S[i, 0]  (this breaks the chain)",
    ]
    tl103 = next(i for i, line in enumerate(lines) if "error: TL103 [semantic] 29:17" in line)
    assert lines[tl103 + 1 : tl103 + 4] == [
        "│       ├─ line 29: clear_row(S, i)  (reported here)",
        "│       ├─ line 28: for i in T.Parallel(block_M):  (the enclosing `T.Parallel` loop)",
        "│       └─ line 9: T.fill(S[row, 0:64], 0)  (in macro `clear_row`)",  # a line of the file
    ]
    tl104 = next(i for i, line in enumerate(lines) if "error: TL104 [semantic] 21:17" in line)
    assert lines[tl104 + 1] == "│       ├─ line 21: row_max[i] = S[i, 0]  (reported here)"
    assert lines[tl104 + 3] == (
        '│       └─ line 18: row_max = T.alloc_local((block_M,), "float32")  '
        "(`row_max` is allocated with `T.alloc_local`)"
    )
    assert LEGEND in lines


def test_a_line_inside_a_macro_selects_the_kernels_it_is_inlined_into(project, capsys):
    lines = explain(capsys, "s.py:9").splitlines()
    assert lines[0] == "s.py:9  (backend: none selected)"
    assert "├── for i in T.Parallel(block_M)  [line 28]  <<<" in lines
    assert sum(line.endswith("  <<<") for line in lines) == 1
    write(project, {"m.py": MACRO_LOOP})
    lines = explain(capsys, "m.py:6").splitlines()
    assert "    └── for j in T.Parallel(64)  [line 14]  <<<" in lines
    assert "          inlined from macro `inner` (called at line 14); written at m.py:6" in lines


MACRO_LOOP = """import tilelang.language as T


@T.macro
def inner(B, i):
    for j in T.Parallel(64):
        B[i, j] = 0


@T.prim_func
def main(B: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.serial(64):
            inner(B, i)
"""


def test_backend_verdicts_on_requested_pipelines(project, capsys):
    write(
        project,
        {
            "g.py": "import tilelang.language as T\n\n\n@T.prim_func\n"
            'def main(A: T.Tensor((64, 64), "float32")):\n'
            "    with T.Kernel(1, threads=128) as bx:\n"
            "        for ko in T.Pipelined(4, num_stages=3):\n"
            "            A[ko, 0] = 0\n"
        },
    )
    assert (
        "      backend cpu: num_stages=3 ignored" in explain(capsys, "g.py", "--backend", "cpu").splitlines()
    )
    assert (
        "      backend cuda-sm100: planned" in explain(capsys, "g.py", "--backend", "cuda-sm100").splitlines()
    )


# -- html and svg ---------------------------------------------------------------------------------


def test_html_is_self_contained_and_labelled(project, capsys):
    html = explain(capsys, "s.py:22", "--output-format", "html")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    for external in ("http://", "https://", "<link", " src="):
        assert external not in html
    assert (
        '<div class="src kernel-line flagged target" id="L22" style="--level:#dc2626" title="error: TL101'
        in html
    )
    assert '<li class="node loop marked" style="--kind:#2563eb" data-lines="22 23">' in html
    assert '<span class="badge pipeline">pipeline: num_stages=2</span>' in html
    assert 'title="error: TL101 [semantic] 22:26 Nested `T.Parallel` loop' in html
    assert "help: Move `row_max[i] = S[i, 0]` into a `T.Parallel` loop of its own" in html
    gemm = Path(__file__).resolve().parent.parent / "fixtures" / "examples" / "gemm.py"
    write(project, {"g.py": gemm.read_text()})
    cpu = explain(capsys, "g.py", "--output-format", "html", "--backend", "cpu")
    assert '<span class="badge verdict">cpu: num_stages=3 ignored</span>' in cpu
    assert '<div class="diag note" style="--level:#0284c7" title="note: TL301 [optimization] 20:23' in cpu


def test_svg_is_well_formed_with_messages_on_hover(project, capsys):
    svg = explain(capsys, "s.py:22", "--output-format", "svg", "--backend", "cuda-sm80")
    root = ElementTree.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    titles = [element.text or "" for element in root.iter(f"{ns}title")]
    assert any(t.startswith("error: TL102 [semantic] 31:26 `T.Pipelined` requests") for t in titles)
    assert any(
        "for k in T.Pipelined(4, num_stages=2)  [line 31; pipeline num_stages=2; cuda-sm80: planned]" in t
        for t in titles
    )
    assert [r.get("class") for r in root.iter(f"{ns}rect") if r.get("class")] == ["target"]
    kinds = {g.get("class") for g in root.iter(f"{ns}g")}
    write(project, {"bad.py": "def f(:\n"})
    bad = ElementTree.fromstring(explain(capsys, "bad.py", "--output-format", "svg"))
    outside = [t.text for t in bad.iter(f"{ns}text") if t.get("class") == "outside"]
    assert outside == ["no TileLang kernels", "error: TL001 [meta] 1:7 Syntax error: invalid syntax"]
    assert {"node parallel", "node serial", "node pipelined", "diagnostic error"} <= kinds


# -- a real browser -----------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGBA pixels) of an 8-bit RGB(A), non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = {}, 8
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        chunks.setdefault(kind, []).append(data[offset + 8 : offset + 8 + length])
        offset += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    assert depth == 8 and colour in (2, 6) and interlace == 0
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(b"".join(chunks[b"IDAT"]))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + up) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                best = min((abs(p - left), 0, left), (abs(p - up), 1, up), (abs(p - corner), 2, corner))[2]
                line[x] = (line[x] + best) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(row[i : i + 3]) for row in rows[::8] for i in range(0, stride, channels * 8)]


def browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--window-size=1400,1000", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's `chromium` is not installed (apt-get install -y chromium)"
)
def test_html_renders_in_headless_chromium(project, capsys, tmp_path):
    page = tmp_path / "explain.html"
    page.write_text(explain(capsys, "s.py:22", "--output-format", "html"), encoding="utf-8")
    shot = tmp_path / "explain.png"
    done = browser(tmp_path, f"--screenshot={shot}", page.as_uri())
    assert shot.is_file(), done.stderr
    width, height, samples = png_pixels(shot.read_bytes())
    assert (width, height) == (1400, 1000)
    colours = set(samples)
    white = sum(1 for pixel in samples if pixel == b"\xff\xff\xff")
    assert len(colours) > 20 and white < 0.9 * len(samples)  # not blank: text, boxes, colours
    dom = browser(tmp_path, "--dump-dom", page.as_uri()).stdout
    for label in ("kernel main", "for j in T.Parallel(64)", "TL101", "TL105", "pipeline: num_stages=2"):
        assert label in dom, label
    assert 'class="src kernel-line flagged target" id="L22"' in dom
