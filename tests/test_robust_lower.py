"""`tilecheck lower` holds its 2,000,000-character cap for the whole file, predicted before
anything is generated (issue 12 §2): many loops that each fit cannot add up past it."""

from __future__ import annotations

import time

from tests.pypto.helpers import HEADER, run_lower_command
from tilecheck.commands.lower import compiles
from tilecheck.pypto import lower_source

_FILE_CAP = "more than the 2,000,000 `tilecheck lower` writes for one file"


def _nest(depth: int, name: str) -> str:
    """`depth` nested `pl.pipeline(0, 64, 1, stage=8)` loops in the function body (about
    490,000 characters lowered at depth 4: each level makes 8 copies)."""
    lines = [
        f"{'    ' * (level + 1)}for {name}{level} in pl.pipeline(0, 64, 1, stage=8):\n"
        for level in range(depth)
    ]
    return "".join(lines) + "    " * (depth + 1) + f"t = pl.tile.load(a, [{name}0], [16])\n"


def _siblings(count: int) -> str:
    return HEADER + "".join(_nest(4, f"k{index}_") for index in range(count))


def test_sibling_nests_stop_at_the_file_cap_and_the_rest_is_left_as_it_is():
    source = _siblings(10)  # 10 x ~490,000 characters if every nest were lowered
    started = time.monotonic()
    result = lower_source(source, "k.py")
    seconds = time.monotonic() - started
    assert result.changed and compiles(result.source)
    assert len(result.source) < 2_000_000
    assert seconds < 60  # generous: the point is that 5 MB are never generated
    refused = [(d.code, d.span.line, d.span.column + 1) for d in result.diagnostics]
    # Three nests fit; the fourth would pass the cap, so its outer level is refused and its inner
    # three levels (about 60,000 characters) are lowered; so for the remaining nests.
    first_refused = 6 + 3 * 5
    assert refused[0] == ("TL491", first_refused, 17)
    assert all(d.code == "TL491" and _FILE_CAP in d.message for d in result.diagnostics)
    assert result.diagnostics[0].message.startswith(
        "this pipeline loop was left as it is: the lowered file would be up to about "
    )
    # The nests before the refused one are lowered in full: 1 + 8 + 64 + 512 `stage=1` loops each.
    head = result.source[: result.source.index("for k3_0 in pl.pipeline(0, 64, 1, stage=8):")]
    assert head.count("stage=1)") == 3 * (1 + 8 + 64 + 512)


def test_one_nest_below_the_cap_is_lowered_in_full():
    result = lower_source(_siblings(1), "k.py")
    assert result.diagnostics == [] and result.changed
    assert result.source.count("stage=1)") == 1 + 8 + 64 + 512


def test_the_command_warns_and_exits_1_not_2(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(_siblings(6))
    status, out, err = run_lower_command(["lower", "--isolated", "--output-format", "concise", str(path)])
    assert status == 1
    assert 0 < len(out) < 2_000_000 and compiles(out)
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:21:17: warning: TL491 [meta] this pipeline loop was left as it is: ")
    assert lines[0].endswith(_FILE_CAP)
    assert lines[-1].startswith("Found ") and lines[-1].endswith(" warnings in 1 file.")
