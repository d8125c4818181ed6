"""Scheduling files over workers (largest first, one at a time) and a start-up that stays light."""

from __future__ import annotations

import subprocess
import sys

import tilecheck
from tilecheck.app.scheduling import BYTES_PER_WORKER, largest_first, worker_count


def test_largest_files_go_first_and_ties_keep_their_order():
    assert largest_first([10, 300, 20, 300, 5]) == [1, 3, 2, 0, 4]
    assert largest_first([]) == []


def test_workers_only_when_there_is_enough_source_for_them():
    assert worker_count(None, [100] * 10) == 1  # a few small files: no fork at all
    assert worker_count(4, [BYTES_PER_WORKER] * 3) == 3  # no more workers than files
    assert worker_count(2, [BYTES_PER_WORKER] * 100) == 2  # no more than asked for
    assert worker_count(8, [BYTES_PER_WORKER // 2] * 6) == 3  # three workers' worth of source
    assert worker_count(3, []) == 1


def test_version_imports_neither_the_command_line_nor_libcst():
    code = (
        "import sys\n"
        "from tilecheck.__main__ import main\n"
        "status = main(['--version'])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('libcst', 'argparse') or m.startswith('tilecheck.'))\n"
        "print(status, loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == f"tilecheck {tilecheck.__version__}\n0 ['tilecheck.__main__']\n"


def test_python_dash_m_and_the_entry_point_agree():
    out = subprocess.run([sys.executable, "-m", "tilecheck", "--version"], capture_output=True, text=True)
    assert (out.returncode, out.stdout, out.stderr) == (0, f"tilecheck {tilecheck.__version__}\n", "")
    out = subprocess.run([sys.executable, "-m", "tilecheck", "rules"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("TL001  ")
