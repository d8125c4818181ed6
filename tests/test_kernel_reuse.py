"""The editor's re-check re-models only the kernel an edit touched (`tilecheck.tilelang.reuse`),
and what it reuses gives exactly what a fresh check of the same text gives."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilecheck.config.resolver import Resolver
from tilecheck.core.codec import encode
from tilecheck.lint.analysis import FileAnalysis
from tilecheck.lint.engine import lint_source
from tilecheck.source.chunks import ChunkCache, parse_module
from tilecheck.tilelang.reuse import KernelMemo

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(
    path
    for path in (ROOT / "fixtures").rglob("*.py")
    if "prim_func" in path.read_text(encoding="utf-8") and "projects" not in path.parts
)

THREE_KERNELS = """\
import tilelang.language as T


def first(M):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(1) as bx:
            for i in T.Parallel(M):
                A[i] = 0.0

    return main


def second(N):
    @T.prim_func
    def main(B: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            for k in T.serial(0, N, 1):
                B[k] = 1.0

    return main


@T.prim_func
def third(C: T.Tensor((8,), "float32")):
    with T.Kernel(1) as bx:
        for j in T.Parallel(8):
            C[j] = 2.0
"""


def settings_for(path: Path):
    return Resolver(isolated=True).for_path(str(path)).for_file(str(path))


def outcome(analysis: FileAnalysis) -> list[object]:
    """Everything a check reports: the diagnostics (every field) and what the model covered."""
    return [[encode(d, "") for d in analysis.diagnostics], analysis.internal_error, analysis.coverage]


def test_an_edit_inside_one_kernel_models_only_that_kernel(tmp_path):
    path = tmp_path / "k.py"
    chunks, memo = ChunkCache(), KernelMemo()
    settings = settings_for(path)
    first = lint_source(THREE_KERNELS, str(path), settings, chunks=chunks, kernels=memo)
    assert (memo.built, memo.reused) == (3, 0)
    assert first.model is not None and len(first.model.kernels) == 3
    edited = THREE_KERNELS.replace("T.serial(0, N, 1)", "T.serial(0, N, 0)")
    again = lint_source(edited, str(path), settings, chunks=chunks, kernels=memo)
    assert (memo.built, memo.reused) == (4, 2)  # the second kernel only, the other two reused
    assert [(d.code, d.span.line, d.span.column) for d in again.diagnostics] == [("TL205", 18, 21)]
    assert outcome(again) == outcome(lint_source(edited, str(path), settings))
    unchanged = lint_source(
        edited + "\n# a comment at the end\n", str(path), settings, chunks=chunks, kernels=memo
    )
    assert (memo.built, memo.reused) == (5, 4)  # the comment joins the last statement's chunk
    assert outcome(unchanged)[0] == outcome(again)[0]


def test_a_kernel_whose_constant_changed_is_modeled_again(tmp_path):
    path = tmp_path / "k.py"
    text = "import tilelang.language as T\n\nSTEP = 1\n\n" + THREE_KERNELS.split("\n", 2)[2].replace(
        "T.serial(0, N, 1)", "T.serial(0, N, STEP)"
    )
    chunks, memo = ChunkCache(), KernelMemo()
    settings = settings_for(path)
    assert lint_source(text, str(path), settings, chunks=chunks, kernels=memo).diagnostics == []
    edited = text.replace("STEP = 1", "STEP = 0")
    again = lint_source(edited, str(path), settings, chunks=chunks, kernels=memo)
    assert (memo.built, memo.reused) == (4, 2)  # the kernel reading STEP, not the others
    assert [d.code for d in again.diagnostics] == ["TL205"]


def test_an_unchanged_statement_stays_the_same_node_from_one_text_to_the_next():
    chunks = ChunkCache()
    before = parse_module(THREE_KERNELS, chunks)
    after = parse_module(THREE_KERNELS.replace("A[i] = 0.0", "A[i] = 3.0"), chunks)
    same = [old is new for old, new in zip(before.body, after.body, strict=True)]
    assert same == [True, False, True, True]


EDITS = st.sampled_from(["comment", "blank", "digit", "delete", "duplicate"])


def edit(text: str, kind: str, where: int) -> str:
    lines = text.split("\n")
    index = where % len(lines)
    line = lines[index]
    if kind == "comment":
        lines[index] = f"{line}  # edited"
    elif kind == "blank":
        lines.insert(index, "")
    elif kind == "digit":
        for digit in "0123456789":
            if digit in line:
                lines[index] = line.replace(digit, str((int(digit) + 1) % 10), 1)
                break
    elif kind == "delete":
        del lines[index]
    else:
        lines.insert(index, line)
    return "\n".join(lines)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(FIXTURES),
    st.lists(st.tuples(EDITS, st.integers(min_value=0, max_value=10_000)), min_size=1, max_size=4),
)
def test_a_reused_check_equals_a_fresh_one(fixture, edits):
    text = fixture.read_text(encoding="utf-8")
    settings = settings_for(fixture)
    chunks, memo = ChunkCache(), KernelMemo()
    lint_source(text, str(fixture), settings, chunks=chunks, kernels=memo)
    for kind, where in edits:
        text = edit(text, kind, where)
        reused = lint_source(text, str(fixture), settings, chunks=chunks, kernels=memo)
        assert outcome(reused) == outcome(lint_source(text, str(fixture), settings))


def test_a_deep_statement_is_refused_whatever_the_buffer_saw_before(tmp_path):
    """The editor's cache of statements known not to nest too deeply never hides a deep one."""
    path = tmp_path / "k.py"
    settings = settings_for(path)
    chunks = ChunkCache()
    wide = "X = [" + ", ".join(["(1)"] * 700) + "]\n"  # suspicious (a long line), but shallow
    assert lint_source(wide + THREE_KERNELS, str(path), settings, chunks=chunks).diagnostics == []
    assert wide in chunks.shallow
    deep = "Y = " + "(" * 1100 + "1" + ")" * 1100 + "\n"
    found = lint_source(wide + deep + THREE_KERNELS, str(path), settings, chunks=chunks)
    fresh = lint_source(wide + deep + THREE_KERNELS, str(path), settings)
    assert [(d.code, d.span.line) for d in found.diagnostics] == [("TL004", 2)]
    assert outcome(found) == outcome(fresh)


GEMM = """

@T.prim_func
def {name}(A: T.Tensor((512, 512), "float16"), B: T.Tensor((512, 512), "float16")):
    with T.Kernel(4, 4, threads=128) as (bx, by):
        A_s = T.alloc_shared((128, 64), "float16")
        B_s = T.alloc_shared((64, 128), "float16")
        C_l = T.alloc_fragment((128, 128), "float32")
        for k in T.Pipelined(8, num_stages={stages}):
            T.copy(A[by * 128, k * 64], A_s)
            T.copy(B[k * 64, bx * 128], B_s)
            T.gemm(A_s, B_s, C_l)
"""
TWO_GEMMS = (
    "import tilelang.language as T\n"
    + GEMM.format(name="first", stages=4)
    + GEMM.format(name="second", stages=2)
)


def test_an_edit_inside_one_kernel_sizes_only_that_kernel(tmp_path, monkeypatch):
    """TL501 sizes every kernel under a CUDA profile; a reused kernel keeps its layouts, and
    the hover data sent with each check sizes nothing (a hover sizes the kernel it is on)."""
    from tilecheck.config.resolver import Overrides
    from tilecheck.server import hover_data
    from tilecheck.tilelang import warp_specialized

    sized: list[str] = []
    original = warp_specialized.shared_layout

    def counting(kernel, *arguments):
        sized.append(kernel.name)
        return original(kernel, *arguments)

    monkeypatch.setattr(warp_specialized, "shared_layout", counting)
    path = tmp_path / "k.py"
    settings = Resolver(Overrides(backend="cuda-sm86"), isolated=True).for_path(str(path)).for_file(str(path))
    chunks, memo = ChunkCache(), KernelMemo()

    def check(text: str) -> FileAnalysis:
        analysis = lint_source(text, str(path), settings, chunks=chunks, kernels=memo)
        hover_data.hover_data(analysis, settings)
        return analysis

    first = check(TWO_GEMMS)
    assert [(d.code, d.span.line, d.span.column) for d in first.diagnostics] == [("TL501", 6, 9)]
    assert sorted(set(sized)) == ["first", "second"]
    sized.clear()
    edited = check(TWO_GEMMS.replace("num_stages=2", "num_stages=4"))
    assert (memo.built, memo.reused) == (3, 1)
    assert set(sized) == {"second"}  # the first kernel's layouts came with it
    assert [(d.code, d.span.line) for d in edited.diagnostics] == [("TL501", 6), ("TL501", 18)]
    sized.clear()
    assert edited.context is not None
    ((span, text),) = hover_data.launches_at(edited.context, 18, 12)
    assert (span.line, span.column, span.end_line, span.end_column) == (18, 9, 18, 36)
    assert text.splitlines()[2] == (
        "- shared memory per block, cp.async (sm_80, sm_86, sm_87, sm_89, gfx950): 131,072 bytes (131,072 dynamic + 0 static); "
        "the limit on cuda-sm86 is 101,376: EXCEEDS it"
    )
    assert sized == []  # sized for TL501 already: the hover reads the kernel's layouts
