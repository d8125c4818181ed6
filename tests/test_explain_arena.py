"""`explain --output-format html`: the shared-memory arena drawn as bars along the byte axis with
the limit as a line, checked in a real headless browser (Debian's `chromium`)."""

from __future__ import annotations

import json

import pytest

from tests.support import run, write
from tests.test_explain_pictures import CHROMIUM, browser, close, pixel, png_rows
from tests.test_shared_memory import gemm
from tilecheck.explain.arena import BAR_COLOURS, LIMIT_COLOUR

# 128x64 and 64x128 fp16 tiles x 4 versions (65,536 B each), then a 128x128 fp16 epilogue tile
# that reuses the pipeline's space at offset 0: 131,072 B, over cuda-sm86's 101,376.
EPILOGUE = gemm(
    bm=128,
    bn=128,
    bk=64,
    stages=4,
    extra='        D_s = T.alloc_shared((128, 128), "float16")\n',
    after="        T.copy(C_l, D_s)\n        T.copy(D_s, C[by * 128, bx * 128])\n",
)

PROBE = """<script>
window.addEventListener('load', () => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const bars = {};
  for (const bar of document.querySelector('figure.arena').querySelectorAll('.arena-bar')) bars[bar.dataset.buffer] = box(bar);
  const limit = document.querySelector('.arena-limit');
  const probe = {bars, limit: limit && box(limit), caption: document.querySelector('figure.arena figcaption').textContent};
  const out = document.createElement('pre'); out.id = 'probe'; out.textContent = JSON.stringify(probe);
  document.body.appendChild(out);
});
</script>"""


@pytest.fixture
def page(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": EPILOGUE})
    outcome = run(
        capsys, "explain", "k.py", "--backend", "cuda-sm86", "--output-format", "html", "--isolated"
    )
    assert outcome.status == 0, outcome.err
    return outcome.out


def test_the_page_draws_one_bar_per_used_buffer_and_the_limit(page):
    # three used buffers in each class's figure: cp.async (the selected profile's, with its limit)
    # and the warp-specialised one
    assert page.count('class="arena-bar"') == 6
    assert page.count('class="arena-limit"') == 1
    assert (
        "<figcaption>shared memory, cp.async (sm_80, sm_86, sm_87, sm_89, gfx950): 131,072 bytes dynamic; the limit on "
        "cuda-sm86 is 101,376: EXCEEDS it</figcaption>" in page
    )


def test_no_arena_without_a_sized_layout(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": EPILOGUE.replace("(128, 128), ", "(n, 128), ")})
    outcome = run(
        capsys, "explain", "k.py", "--backend", "cuda-sm86", "--output-format", "html", "--isolated"
    )
    assert "arena-bar" not in outcome.out.split("</style>", 1)[1]


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's `chromium` is not installed")
def test_the_arena_renders_in_headless_chromium(page, tmp_path):
    html = tmp_path / "explain.html"
    html.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    dom = browser(tmp_path, "--window-size=1400,900", "--dump-dom", html.as_uri()).stdout
    probe = json.loads(dom.split('<pre id="probe">', 1)[1].split("</pre>", 1)[0].replace("&quot;", '"'))
    a, b, d = (probe["bars"][name] for name in ("A_s", "B_s", "D_s"))
    start, end = a[0], b[2]
    assert abs(d[0] - start) < 0.5 and abs(b[0] - a[2]) < 0.5  # D_s reuses offset 0; B_s follows A_s
    assert abs((a[2] - start) / (end - start) - 0.5) < 0.005  # 65,536 of 131,072 bytes
    assert abs((d[2] - start) / (end - start) - 0.25) < 0.005  # 32,768 of 131,072 bytes
    limit = (probe["limit"][0] + probe["limit"][2]) / 2
    assert abs((limit - start) / (end - start) - 101376 / 131072) < 0.005
    shot = tmp_path / "arena.png"
    browser(tmp_path, "--window-size=1400,900", f"--screenshot={shot}", html.as_uri())
    _, _, rows = png_rows(shot.read_bytes())
    middle = (a[1] + a[3]) / 2
    assert close(pixel(rows, (start + a[2]) / 2 - 40, middle), BAR_COLOURS[0])
    assert close(pixel(rows, (b[0] + b[2]) / 2 + 60, (b[1] + b[3]) / 2), BAR_COLOURS[1])
    assert close(pixel(rows, limit, (d[1] + d[3]) / 2), LIMIT_COLOUR)  # the line crosses the rows


def test_the_svg_picture_draws_the_arena_under_the_legend(tmp_path, monkeypatch, capsys):
    import xml.etree.ElementTree as ElementTree

    from tilecheck.explain.arena import LABEL, WIDTH

    monkeypatch.chdir(tmp_path)
    write(tmp_path, {"k.py": EPILOGUE})
    outcome = run(capsys, "explain", "k.py", "--backend", "cuda-sm86", "--output-format", "svg", "--isolated")
    root = ElementTree.fromstring(outcome.out)  # well-formed, one image
    ns = "{http://www.w3.org/2000/svg}"
    legend = next(t for t in root.iter(f"{ns}text") if t.get("class") == "legend")
    # cp.async's arena first (the selected profile's class, with its limit), then the TMA class's
    cp_async, _ = [s for s in root.iter(f"{ns}svg") if s.get("class") == "arena-svg"]
    arena = cp_async
    assert float(arena.get("y", 0)) > float(legend.get("y", 0))
    assert float(arena.get("y", 0)) + float(arena.get("height", 0)) <= float(root.get("height", 0))
    bars = {r.get("data-buffer"): r for r in arena.iter(f"{ns}rect")}
    scale = WIDTH / 131072
    assert {name: (float(r.get("x", 0)), float(r.get("width", 0))) for name, r in bars.items()} == {
        "A_s": (LABEL, pytest.approx(65536 * scale)),
        "B_s": (pytest.approx(LABEL + 65536 * scale), pytest.approx(65536 * scale)),
        "D_s": (LABEL, pytest.approx(32768 * scale)),
    }
    (limit,) = [line for line in arena.iter(f"{ns}line") if line.get("class") == "arena-limit"]
    assert float(limit.get("x1", 0)) == pytest.approx(LABEL + 101376 * scale, abs=0.01)
