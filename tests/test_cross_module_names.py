"""`T` and macros reached through names the imports do not bind directly: module-level
assignments (`T = tilelang.language`, `T = lu.T`, `P = T.Parallel`), module attributes
(`utils.T.Parallel`, `macros.load_tile(...)`, `lazy.load_tilelang()`), absolute imports from
the project root, and the TL006 reasons when they do not resolve. Each violating kernel is a
minimal version of a reviewer's project (issue 10); TileLang 0.1.15 rejects every one of them
(`pytest --basetemp=DIR tests/test_cross_module_names.py`, then, in the oracle venv,
`python tools/oracle/lower_test_projects.py DIR`: the verdicts are recorded there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilecheck.lint.engine import check_file

# T.fill inside T.Parallel: TileLang 0.1.15 raises "Only elementwise operations are allowed
# inside a parallel loop" (confirmed on the reviewer's s1.py, s7.py and lib/ops/a.py).
FILL_IN_PARALLEL = (
    "@{T}.prim_func\n"
    'def main(A: {T}.Tensor((64,), "float32")):\n'
    "    with {T}.Kernel(1, threads=128) as bx:\n"
    '        f = {T}.alloc_fragment((64,), "float32")\n'
    "        for i in {P}(64):\n"
    "            {T}.fill(f, 0)\n"
)


def kernel(header: str, t: str = "T", parallel: str | None = None) -> str:
    return header + "\n\n" + FILL_IN_PARALLEL.format(T=t, P=parallel or f"{t}.Parallel")


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(path: Path) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.column + 1, d.code) for d in check_file(str(path)).diagnostics]


def header_lines(header: str) -> int:
    return header.count("\n") + 1


@pytest.mark.parametrize(
    "header",
    [
        "import tilelang\nT = tilelang.language",  # s1.py
        "import tilelang.language as TL\nT = TL",  # s2.py
        "import tilelang as tl\nT = tl.language",  # s3.py
        "from tilelang import language\nT = language",  # s4.py
        "import tilelang\nimport tilelang.language\nT = tilelang.language",  # s5.py
    ],
)
def test_t_assigned_from_another_name_in_the_kernel_file(tmp_path, header):
    path = tmp_path / "k.py"
    path.write_text(kernel(header))
    assert found(path) == [(header_lines(header) + 7, 13, "TL103")]


def test_a_loop_constructor_assigned_to_a_name(tmp_path):  # s7.py
    path = tmp_path / "k.py"
    path.write_text(kernel("import tilelang.language as T\nP = T.Parallel", parallel="P"))
    assert found(path) == [(9, 13, "TL103")]


HELPER_ASSIGNS = "import tilelang\nT = tilelang.language\n"  # lib/utils.py


@pytest.mark.parametrize(
    ("kernel_file", "header", "t"),
    [
        ("lib/ops/a.py", "from .. import utils", "utils.T"),  # T through a module attribute
        ("lib/ops/a4.py", "import lib.utils as lu", "lu.T"),
        ("lib/ops/c.py", "from lib.utils import T", "T"),
        ("lib/ops/d.py", "from lib import utils as U\nT = U.T", "T"),
        ("lib/ops/k3.py", "import lib.utils\nT = lib.utils.T", "T"),
    ],
)
def test_t_assigned_in_a_helper_module_and_reached_through_it(tmp_path, kernel_file, header, t):
    write(tmp_path, {
        "lib/__init__.py": "", "lib/ops/__init__.py": "", "lib/utils.py": HELPER_ASSIGNS,
        kernel_file: kernel(header, t),
    })  # fmt: skip
    assert found(tmp_path / kernel_file) == [(header_lines(header) + 7, 13, "TL103")]


def test_t_assigned_from_a_helper_inside_the_factory(tmp_path):  # lib/ops/b.py
    write(tmp_path, {
        "lib/__init__.py": "", "lib/ops/__init__.py": "", "lib/utils.py": HELPER_ASSIGNS,
        "lib/ops/b.py": "import lib.utils as lu\n\n\ndef make(n=64):\n    T = lu.T\n\n"
                        "    @T.prim_func\n    def main(A: T.Tensor((n,), \"float32\")):\n"
                        "        with T.Kernel(1, threads=128) as bx:\n"
                        "            s = T.alloc_shared((n,), \"float32\")\n"
                        "            for i in T.Parallel(n):\n                T.fill(s, 0)\n"
                        "    return main\n",
    })  # fmt: skip
    assert found(tmp_path / "lib/ops/b.py") == [(12, 17, "TL103")]


def test_t_through_a_module_that_does_not_exist_gets_the_note(tmp_path):  # lib/ops/e.py
    write(tmp_path, {"pkg/__init__.py": "", "pkg/e.py": kernel("from . import nothere", "nothere.T")})
    (note,) = check_file(str(tmp_path / "pkg/e.py")).diagnostics
    assert (note.code, note.span.line, note.span.column) == ("TL006", 3, 1)
    assert note.message == (
        "TileLang code that tilecheck did not check: `nothere.T.prim_func` at line 3, "
        "`nothere.T.Kernel` at line 5 and `nothere.T.Parallel` at line 7 (`nothere.T` is not resolved "
        "to `tilelang.language`: `nothere` comes from `.nothere`, which tilecheck could not follow "
        "(no such file in the project))"
    )


def test_an_assignment_from_an_unresolved_module_gets_a_reason(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/k.py": kernel("from . import nothere\nT = nothere.T")})
    (note,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics
    assert (note.code, note.span.line) == ("TL006", 4)
    assert note.message.endswith(
        "(`T` is not resolved to `tilelang.language`: it comes from the assignment `T = nothere.T`, "
        "where `nothere` comes from `.nothere`, which tilecheck could not follow (no such file in the project))"
    )


def test_an_assignment_from_a_module_that_binds_nothing_of_that_name(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": "X = 1\n",
                     "pkg/k.py": kernel("from . import utils\nT = utils.T")})  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics
    assert note.message.endswith(
        "(`T` is not resolved to `tilelang.language`: it comes from the assignment `T = utils.T`, "
        "where `utils` (utils.py) binds no `T` that tilecheck resolves)"
    )


MACROS = (
    "import tilelang.language as T\n\n\n@T.macro\ndef load_tile(src, dst, row):\n"
    "    T.copy(src[row, 0], dst)\n"
)
# T.copy inside T.Parallel through the macro: TileLang 0.1.15 rejects the reviewer's m5.py
# ("Only elementwise operations are allowed inside a parallel loop").
MACRO_KERNEL = (
    "import tilelang.language as T\n{imports}\n\n\n@T.prim_func\n"
    'def main(A: T.Tensor((64, 64), "float32")):\n    with T.Kernel(1, threads=128) as bx:\n'
    '        f = T.alloc_fragment((64, 64), "float32")\n        for i in T.Parallel(64):\n'
    "            {call}(A, f, i)\n"
)


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("from .common import macros", "macros.load_tile"),
        ("from . import common", "common.load"),  # re-exported by common/__init__.py
        ("import pkg.common.macros", "pkg.common.macros.load_tile"),
    ],
)
def test_a_macro_called_through_a_module_attribute_is_inlined(tmp_path, imports, call):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common/__init__.py": "from .macros import load_tile as load\n",
        "pkg/common/macros.py": MACROS,
        "pkg/m5.py": MACRO_KERNEL.format(imports=imports, call=call),
    })  # fmt: skip
    (finding,) = check_file(str(tmp_path / "pkg/m5.py")).diagnostics
    assert (finding.code, finding.span.line, finding.span.column) == ("TL103", 10, 12)
    assert finding.message.endswith("(in macro `load_tile`, common/macros.py, line 6)")


def test_a_macro_called_through_an_unparsable_module_gets_the_note(tmp_path):  # m8.py
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/bad.py": "import tilelang.language as T\n\n@T.macro\ndef broken(dst:\n    T.fill(dst, 0)\n",
        "pkg/m8.py": MACRO_KERNEL.format(imports="from . import bad", call="bad.broken"),
    })  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg/m8.py")).diagnostics
    assert (note.code, note.span.line, note.span.column) == ("TL006", 10, 12)
    assert note.message == (
        "TileLang code that tilecheck did not check: what the kernel calls as `bad.broken` (line 10) "
        "(`bad` comes from `.bad`, which tilecheck could not follow (it does not parse))"
    )


def test_a_lazy_loader_called_through_its_module(tmp_path):  # p4/pkg/k5.py
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/lazy.py": "import functools\n\n\n@functools.lru_cache(None)\ndef load_tilelang():\n"
                       "    import tilelang\n    import tilelang.language as T\n    return tilelang, T\n",
        "pkg/k5.py": kernel("from . import lazy\n\ntl, T = lazy.load_tilelang()"),
    })  # fmt: skip
    assert found(tmp_path / "pkg/k5.py") == [(10, 13, "TL103")]


def test_absolute_imports_from_the_project_root_however_deep(tmp_path):  # p9/flat
    deep = "pkg/a/b/c/d/e/f"
    files = {"pyproject.toml": "[tool.tilecheck]\n", "pkg/tl.py": "import tilelang.language as T\n"}
    for depth in range(1, 8):
        files["/".join(deep.split("/")[:depth]) + "/__init__.py"] = ""
    files[f"{deep}/k.py"] = kernel("from pkg.tl import T")
    files["pkg/k_chain.py"] = kernel("from pkg.a.b.c.d.e.f.k import T")  # k.py's import, transitively
    write(tmp_path, files)
    assert found(tmp_path / deep / "k.py") == [(8, 13, "TL103")]
    assert found(tmp_path / "pkg/k_chain.py") == [(8, 13, "TL103")]


def test_a_reexport_chain_too_deep_says_so(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/k.py": kernel("from .h1 import T")}
    for hop in range(1, 5):
        files[f"pkg/h{hop}.py"] = f"from .h{hop + 1} import T\n"
    files["pkg/h5.py"] = "import tilelang.language as T\n"
    write(tmp_path, files)
    (note,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics
    assert note.code == "TL006"
    assert note.message.endswith(
        "(`T` is not resolved to `tilelang.language`: it comes from `.h5`, more imports away than "
        "tilecheck follows (4))"
    )


def test_a_helper_binding_t_to_another_module_says_what_it_is(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": "import numpy as T\n",
                     "pkg/k.py": kernel("from .helpers import T")})  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics
    assert note.code == "TL006"
    assert note.message.endswith(
        "(`T` is `numpy`, imported from `.helpers`, not TileLang's `tilelang.language`)"
    )


def test_an_import_cycle_says_so(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/helpers.py": "from .other import T\n",
                     "pkg/other.py": "from .helpers import T\n", "pkg/k.py": kernel("from .helpers import T")})  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics
    assert note.code == "TL006"
    assert "an import cycle" in note.message


def test_an_import_under_if_type_checking_names_the_branch(tmp_path):  # p12/c.py
    path = tmp_path / "c.py"
    path.write_text(kernel(
        "from typing import TYPE_CHECKING\nimport importlib\n\nif TYPE_CHECKING:\n"
        "    import tilelang.language as T\nelse:\n    T = importlib.import_module(\"tilelang.language\")"
    ))  # fmt: skip
    (note,) = check_file(str(path)).diagnostics
    assert (note.code, note.span.line) == ("TL006", 9)
    assert note.message.endswith(
        "(`T` is imported from `tilelang.language` only inside a function or a conditional branch "
        "(`if`), where tilecheck does not resolve imports)"
    )


def test_a_constant_assignment_does_not_unbind_an_import(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(kernel("import tilelang.language as T\nM = 64\nN = M\nX = None"))
    assert found(path) == [(11, 13, "TL103")]


def test_a_macro_stored_on_self_gets_the_note(tmp_path):  # p6/kern/m7.py
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common.py": "import tilelang.language as T\n\n\ndef make_loader(stages):\n    @T.macro\n"
                         "    def loader(dst, row):\n        for k in T.Pipelined(4, num_stages=stages):\n"
                         "            dst[row, k] = 0\n\n    return loader\n",
        "pkg/m7.py": "import tilelang.language as T\nfrom .common import make_loader\n\n\nclass K:\n"
                     "    def __init__(self, stages=3):\n        self.loader = make_loader(stages)\n\n"
                     "    def build(self):\n        @T.prim_func\n"
                     "        def main(A: T.Tensor((64, 64), \"float32\")):\n"
                     "            with T.Kernel(1, threads=128) as bx:\n"
                     "                f = T.alloc_fragment((64, 64), \"float32\")\n"
                     "                for i in T.Parallel(64):\n                    self.loader(f, i)\n"
                     "        return main\n",
    })  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg/m7.py")).diagnostics
    assert (note.code, note.span.line, note.span.column) == ("TL006", 15, 20)
    assert note.message == (
        "TileLang code that tilecheck did not check: what the kernel calls as `self.loader` (line 15) "
        "(`self.loader` is an attribute whose value tilecheck does not know; a macro stored on `self` "
        "is not inlined)"
    )
    assert note.help is not None and note.help.startswith("Call the macro by a name bound at module level")


def test_an_uncalled_factory_macro_gets_help_that_says_where_it_is_checked(tmp_path):
    path = tmp_path / "macros.py"
    path.write_text(
        "import tilelang.language as T\n\n\ndef make_loader(stages):\n    @T.macro\n"
        "    def loader(dst, row):\n        for k in T.Pipelined(4, num_stages=stages):\n"
        "            dst[row, k] = 0\n\n    return loader\n"
    )
    (note,) = check_file(str(path)).diagnostics
    assert (note.code, note.span.line, note.span.column) == ("TL006", 7, 17)
    assert note.help is not None and note.help.startswith(
        "Nothing to change here: check the files whose kernels"
    )


def test_only_the_imports_the_file_uses_spend_the_file_budget(tmp_path):  # p14/pk/k.py
    files = {"pkg/__init__.py": ""}
    for n in range(1, 41):
        files[f"pkg/h{n}.py"] = (
            f"import tilelang.language as T\n\n\n@T.macro\ndef mac{n}(f):\n    f[0] = {n}\n"
        )
    files["pkg/h39.py"] = "import tilelang.language as T\n\n\n@T.macro\ndef mac39(f):\n    T.fill(f, 0)\n"
    imports = "".join(f"from .h{n} import mac{n}\n" for n in range(1, 41)) + "from .h40 import T"
    files["pkg/k.py"] = kernel(imports).replace("            T.fill(f, 0)\n", "            mac39(f)\n")
    write(tmp_path, files)
    (finding,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics  # h39 is the 41st import
    assert (finding.code, finding.span.line, finding.span.column) == ("TL103", 48, 12)
    assert finding.message.endswith("(in macro `mac39`, h39.py, line 6)")


def test_full_output_shows_the_line_of_a_macro_in_another_file(tmp_path, capsys, monkeypatch):
    from tests.support import run

    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common/__init__.py": "from .macros import load_tile as load\n",
        "pkg/common/macros.py": MACROS,
        "pkg/m5.py": MACRO_KERNEL.format(imports="from . import common", call="common.load"),
    })  # fmt: skip
    monkeypatch.chdir(tmp_path)
    outcome = run(capsys, "check", "--no-cache", "--output-format", "full", "pkg/m5.py")
    assert outcome.status == 1
    assert (
        "  ::: pkg/common/macros.py:6:5\n"
        "   |\n"
        " 6 |     T.copy(src[row, 0], dst)\n"
        "   |     ------------------------ in macro `load_tile`\n"
    ) in outcome.out


def test_a_plain_function_of_a_helper_reexported_through_a_package_gets_no_note(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/quantize/__init__.py": "from .quantization import convert\n",
        "pkg/quantize/quantization.py": "def convert(x):\n    return x\n",
        "pkg/k.py": "import tilelang.language as T\nfrom .quantize import convert\n\n\n@T.prim_func\n"
                    "def main(A: T.Tensor((64,), \"float32\")):\n    with T.Kernel(1, threads=128) as bx:\n"
                    "        for i in T.Parallel(64):\n            A[i] = convert(A[i])\n",
    })  # fmt: skip
    assert found(tmp_path / "pkg/k.py") == []


def test_absolute_imports_from_the_project_roots_src_layout(tmp_path):  # p9/src/deep
    deep = "src/deep/a/b/c/d/e/f"
    files = {"pyproject.toml": "[tool.tilecheck]\n", "src/deep/tl.py": "import tilelang.language as T\n"}
    for depth in range(2, 9):
        files["/".join(deep.split("/")[:depth]) + "/__init__.py"] = ""
    files[f"{deep}/k_abs.py"] = kernel("from deep.tl import T")
    write(tmp_path, files)
    assert found(tmp_path / deep / "k_abs.py") == [(8, 13, "TL103")]


def test_t_standing_for_a_module_not_in_the_project_says_so(tmp_path):  # p9/src/deep/k_star.py
    write(tmp_path, {"pkg/__init__.py": "", "pkg/h.py": "from elsewhere.tl import T\n",
                     "pkg/k.py": kernel("from .h import *")})  # fmt: skip
    (note,) = check_file(str(tmp_path / "pkg/k.py")).diagnostics
    assert note.message.endswith(
        "(`T` is not resolved to `tilelang.language`: it stands for `elsewhere.tl.T`, which tilecheck "
        "does not find in the project)"
    )
