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


SVG = "{http://www.w3.org/2000/svg}"


def test_svg_is_well_formed_and_writes_the_messages_out(project, capsys):
    svg = explain(capsys, "s.py:22", "--output-format", "svg", "--backend", "cuda-sm80")
    root = ElementTree.fromstring(svg)
    texts = [element.text or "" for element in root.iter(f"{SVG}text")]
    assert (
        "error: TL102 [semantic] 31:26 T.Pipelined requests a software pipeline (num_stages=2) inside the"
        in texts
    )
    assert (
        "help: Move row_max[i] = S[i, 0] into a T.Parallel loop of its own, then fuse the remaining pair into"
        in texts
    )
    assert "  line 21: row_max[i] = S[i, 0]  (this breaks the chain)" in texts
    assert (
        "for k in T.Pipelined(4, num_stages=2)  [line 31; pipeline num_stages=2; cuda-sm80: planned]" in texts
    )
    assert not [t for t in texts if "`" in t]  # no Markdown backticks on the picture, legend included
    assert plain_legend() in texts
    marks = [(r.get("class"), r.get("data-line")) for r in root.iter(f"{SVG}rect") if r.get("data-line")]
    assert ("target", "22") in marks and ("related", "20") in marks and ("reported", "21") in marks
    kinds = {g.get("class") for g in root.iter(f"{SVG}g")}
    assert {"node parallel", "node serial", "node pipelined"} <= kinds
    write(project, {"bad.py": "def f(:\n"})
    drawn = run(capsys, "explain", "bad.py", "--output-format", "svg", "--isolated")
    assert drawn.status == 1  # nothing could be drawn: it fails, with its TL001 drawn
    bad = ElementTree.fromstring(drawn.out)
    outside = [t.text for t in bad.iter(f"{SVG}text") if t.get("class") == "outside"]
    assert outside == ["no TileLang kernels", "error: TL001 [meta] 1:7 Syntax error: invalid syntax"]


def plain_legend() -> str:
    return LEGEND.replace("`", "")


def svg_rows(root: ElementTree.Element) -> tuple[dict[int, float], dict[int, float]]:
    """(source line -> baseline y of its number, node line -> baseline y of its box's text)."""
    numbers = {}
    for text in root.iter(f"{SVG}text"):
        if text.get("text-anchor") == "end" and (text.text or "").isdigit():
            numbers[int(text.text or "")] = float(text.get("y", "0"))
    nodes = {}
    for group in root.iter(f"{SVG}g"):
        if (group.get("class") or "").startswith("node ") and group.get("data-line"):
            label = group.find(f"{SVG}text")
            assert label is not None
            nodes.setdefault(int(group.get("data-line", "0")), float(label.get("y", "0")))
    return numbers, nodes


def test_svg_rows_align_with_their_source_lines(project, capsys):
    root = ElementTree.fromstring(explain(capsys, "s.py", "--output-format", "svg"))
    numbers, nodes = svg_rows(root)
    assert sorted(nodes) == [15, 20, 22, 24, 25, 26, 28, 30, 31]
    for line, y in nodes.items():
        assert numbers[line] == y, line  # each node on its source line's row
    assert numbers[21] > numbers[20] + 22  # the messages under line 20's loop get blank source rows
    assert list(numbers) == sorted(numbers, key=numbers.__getitem__)  # source order kept


def test_svg_and_html_never_clip_long_lines(project, capsys):
    long = "A[i] = " + " + ".join(f"B[{n}]" for n in range(60))
    write(project, {"w.py": WIDE.replace("A[i] = 0", long)})
    root = ElementTree.fromstring(explain(capsys, "w.py", "--output-format", "svg"))
    width = float(root.get("width", "0"))
    (source,) = [t for t in root.iter(f"{SVG}text") if (t.text or "").strip() == long]
    assert float(source.get("x", "0")) + len(long) * 7.2 <= width  # the canvas holds the whole line
    for text in root.iter(f"{SVG}text"):
        assert text.get("textLength") is None  # never squeezed into a box
    page = explain(capsys, "w.py", "--output-format", "html")
    assert ".src .text { white-space: pre-wrap; overflow-wrap: anywhere;" in page


WIDE = """import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
    with T.Kernel(1) as bx:
        for i in T.Parallel(64):
            A[i] = 0
"""


def test_html_writes_message_help_and_related_locations_on_the_page(project, capsys):
    page = explain(capsys, "s.py", "--output-format", "html")
    assert (
        '<div class="msg">Nested <code>T.Parallel</code> loop: it does not form a strict chain with the '
        "enclosing <code>T.Parallel</code> at line 20, because the outer body also contains the statement "
        "<code>row_max[i] = S[i, 0]</code> (line 21)</div>"
    ) in page
    assert (
        '<div class="help">help: Move <code>row_max[i] = S[i, 0]</code> into a <code>T.Parallel</code>'
        in page
    )
    assert "<li>line 21: row_max[i] = S[i, 0]  (this breaks the chain)</li>" in page
    assert '<div class="src kernel-line related" id="L20">' in page
    assert 'class="src kernel-line flagged related" id="L21"' in page
    assert "<span class=codes>TL104 see TL101</span>" in page
    legend = page[
        page.index('<div class="legend">') : page.index("</div>", page.index('<div class="legend">'))
    ]
    assert "`" not in legend and "<code>?for</code>" in legend


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


def png_pixels(data: bytes, step: int = 8) -> tuple[int, int, list[bytes]]:
    """(width, height, RGB pixels of every `step`-th row and column) of an 8-bit RGB(A),
    non-interlaced PNG."""
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
    return (
        width,
        height,
        [bytes(row[i : i + 3]) for row in rows[::step] for i in range(0, stride, channels * step)],
    )


def browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    size = [] if any(arg.startswith("--window-size") for arg in args) else ["--window-size=1400,1000"]
    command = [CHROMIUM, *FLAGS, "--force-device-scale-factor=1", f"--user-data-dir={profile}", *size, *args]
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


def png_rows(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, every row of RGB pixels, 3 bytes each) of an 8-bit RGB(A) PNG."""
    width, height, samples = png_pixels(data, step=1)
    return width, height, [b"".join(samples[y * width : (y + 1) * width]) for y in range(height)]


def pixel(rows: list[bytes], x: float, y: float) -> tuple[int, int, int]:
    row, at = rows[int(y)], int(x) * 3
    return row[at], row[at + 1], row[at + 2]


def close(found: tuple[int, int, int], colour: str) -> bool:
    wanted = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return all(abs(a - b) <= 6 for a, b in zip(found, wanted, strict=True))


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's `chromium` is not installed")
def test_svg_rows_line_up_in_the_rendered_picture(project, capsys, tmp_path):
    from tilecheck.explain.html import KIND_COLOURS
    from tilecheck.explain.svg import RELATED, REPORTED, TARGET

    svg = explain(capsys, "s.py:22", "--output-format", "svg")
    root = ElementTree.fromstring(svg)
    width, height = int(root.get("width", "0")), int(root.get("height", "0"))
    picture = tmp_path / "explain.svg"
    picture.write_text(svg, encoding="utf-8")
    shot = tmp_path / "svg.png"
    done = browser(tmp_path, f"--screenshot={shot}", f"--window-size={width},{height}", picture.as_uri())
    assert shot.is_file(), done.stderr
    _, _, rows = png_rows(shot.read_bytes())
    bars = {
        int(g.get("data-line", "0")): g.find(f"{SVG}rect[@class='bar']")
        for g in root.iter(f"{SVG}g")
        if (g.get("class") or "").startswith("node ")
    }
    marks = {
        (r.get("class"), int(r.get("data-line", "0"))): r
        for r in root.iter(f"{SVG}rect")
        if r.get("data-line")
    }
    right = width - 20  # past the end of every source line's text, inside its highlight
    for line, colour, kind in ((22, TARGET, "target"), (20, RELATED, "related"), (26, REPORTED, "reported")):
        bar = bars[line]
        assert bar is not None
        y = float(bar.get("y", "0")) + 8  # the middle of the node's row
        assert close(pixel(rows, float(bar.get("x", "0")) + 2, y), KIND_COLOURS["parallel"]), line
        assert close(pixel(rows, right, y), colour), (line, kind, pixel(rows, right, y))  # the same row
        mark = marks[(kind, line)]
        assert float(mark.get("y", "0")) <= y <= float(mark.get("y", "0")) + 22
    # a blank source row (under line 20's loop, where its diagnostic is written) is not highlighted
    gap = float(bars[20].get("y", "0")) + 8 + 22 * 2
    assert pixel(rows, right, gap) == (255, 255, 255)


PROBE = """<script>
window.addEventListener('load', () => {
  const box = element => { const r = element.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const probe = {
    scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
    messages: [...document.querySelectorAll('.diag .msg')].map(m => m.offsetHeight > 0 && m.textContent.length > 0),
    L20: box(document.getElementById('L20')), L22: box(document.getElementById('L22')),
    wide: (() => { const t = document.querySelector('#L8 .text'); const s = t.closest('section');
                   return [t.scrollWidth <= t.clientWidth + 1, box(t)[2] <= box(s)[2] + 1]; })(),
  };
  const out = document.createElement('pre'); out.id = 'probe'; out.textContent = JSON.stringify(probe);
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's `chromium` is not installed")
def test_html_highlights_related_lines_and_wraps_in_the_browser(project, capsys, tmp_path):
    import json

    long = "    " + " + ".join(f"row_max[{n}]" for n in range(40))
    source = DEMO.read_text().splitlines()
    source[7] = source[7] + "  # " + long  # line 8, in the source column
    write(project, {"s.py": "\n".join(source) + "\n"})
    page = tmp_path / "explain.html"
    html = explain(capsys, "s.py:22", "--output-format", "html")
    page.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = browser(tmp_path, "--dump-dom", page.as_uri()).stdout
    probe = json.loads(dom.split('<pre id="probe">', 1)[1].split("</pre>", 1)[0].replace("&quot;", '"'))
    assert probe["scrollWidth"] <= probe["innerWidth"]  # nothing runs off the page
    assert probe["wide"] == [True, True]  # the long line wraps inside its column
    assert probe["messages"] and all(probe["messages"])  # every message is on the page, not in a tooltip
    shot = tmp_path / "explain.png"
    browser(tmp_path, f"--screenshot={shot}", page.as_uri())
    _, _, rows = png_rows(shot.read_bytes())
    for line, colour in (("L20", "#fed7aa"), ("L22", "#fde68a")):  # related, and the requested line
        left, top, right, bottom = probe[line]
        if bottom < 1000:
            assert close(pixel(rows, right - 150, (top + bottom) / 2), colour), (line, probe[line])
    left, top, right, bottom = probe["L20"]
    assert close(pixel(rows, left + 1, (top + bottom) / 2), "#ea580c")  # the related line's bar
