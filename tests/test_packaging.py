"""A plain wheel install ships the engine and the built-in rules, and the console script runs."""

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


ROOT = Path(__file__).resolve().parent.parent


QUIET_EDITABLE = 'PYTHONWARNINGS="ignore:Editable installation"'


def run(*command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


def test_wheel_installs_into_a_fresh_environment(tmp_path):
    wheels = tmp_path / "wheels"
    # Verbose, so that the build backend's own output shows; without PYTHONDONTWRITEBYTECODE, which
    # makes setuptools say "byte-compiling is disabled".
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    built = run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(wheels), str(ROOT), env=env
    )
    assert built.returncode == 0, built.stderr
    warnings = [
        line
        for line in (built.stdout + built.stderr).splitlines()
        if re.search(r"Warning\b|warning:|^\s*!!", line)
        and "Location 'file:" not in line  # pip's index config
    ]
    assert warnings == []  # the setuptools configuration is clean
    [wheel] = wheels.glob("tilecheck-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "tilecheck/rules/tilelang/nested_parallel.py" in names  # rules/ is tilecheck.rules
    assert not any(name.startswith("rules/") for name in names)
    venv = tmp_path / "venv"
    assert run(sys.executable, "-m", "venv", str(venv)).returncode == 0
    installed = run(str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel))
    assert installed.returncode == 0, installed.stderr

    kernel = ROOT / "fixtures" / "examples" / "softmax_mistakes.py"
    result = run(str(venv / "bin" / "tilecheck"), str(kernel), "--output-format", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    codes = sorted({d["code"] for d in json.loads(result.stdout)})
    assert codes == ["TL101", "TL102", "TL103", "TL104", "TL105"]

    listing = run(str(venv / "bin" / "tilecheck"), "rules", "--output-format", "json")
    assert listing.returncode == 0, listing.stderr
    assert {"TL001", "TL101", "TL105"} <= {rule["code"] for rule in json.loads(listing.stdout)}

    # `make demo` / `make test` install in editable mode: quietly, without setuptools notices (the
    # Makefile silences the one informational notice a package-dir mapping makes setuptools print).
    assert f"{QUIET_EDITABLE} $(BIN)/python -m pip install --quiet -e ." in (ROOT / "Makefile").read_text()
    editable = run(
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "-e",
        str(ROOT),
        env={**os.environ, "PYTHONWARNINGS": "ignore:Editable installation"},
    )
    assert editable.returncode == 0, editable.stderr
    notices = [line for line in editable.stderr.splitlines() if "Location 'file:" not in line]
    assert notices == []


def test_the_package_list_names_every_package_directory():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    found = ["tilecheck"]
    for base, prefix in ((ROOT / "tilecheck", "tilecheck"), (ROOT / "rules", "tilecheck.rules")):
        for directory in sorted(path for path in base.rglob("*") if path.is_dir()):
            if directory.name == "__pycache__" or (
                not any(directory.glob("*.py")) and not any(directory.glob("*.toml"))
            ):
                continue
            found.append(".".join([prefix, *directory.relative_to(base).parts]))
    assert sorted(declared) == sorted([*found, "tilecheck.rules"])


def test_the_rules_refuse_to_load_under_another_name():
    done = run(sys.executable, "-c", "import rules", cwd=ROOT)
    assert done.returncode == 1
    assert "ImportError: the built-in rules are the package `tilecheck.rules`, not `rules`" in done.stderr
