"""`make hostile`'s file-system categories (tools/hostile.py runs them): permissions, trees that
shadow the modules tilecheck imports, and paths around the path-length limit.

Each case takes a seeded `random.Random` and an empty directory, builds its tree there and
returns (what it tried, what went wrong or None).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from functools import cache
from typing import Any

from tools.hostile_run import KERNEL, Outcome, frame, run_in_process, wait_for_diagnostics

CLEAN = "x = 1\n"
DROP = "-dac_override,-dac_read_search"
SETPRIV = ["setpriv", f"--inh-caps={DROP}", f"--bounding-set={DROP}"]
SCRIPT = os.path.join(os.path.dirname(sys.executable), "tilecheck")
PATH_MAX = 4096


def _environment(directory: str) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TILECHECK_")}
    environment.update(HOME=os.path.join(directory, "home"), XDG_CACHE_HOME=os.path.join(directory, "xdg"))
    return environment


def _tilecheck(directory: str, cwd: str, arguments: list[str], prefix: list[str]) -> tuple[int, str, str]:
    command = [*prefix, sys.executable, "-m", "tilecheck", *arguments]
    done = subprocess.run(
        command, cwd=cwd, env=_environment(directory), capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout, done.stderr


@cache
def kernel_findings() -> tuple[str, ...]:
    """`line:column code` of each finding in KERNEL, from one clean check."""
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "k.py"), "w", encoding="utf-8") as out:
            out.write(KERNEL)
        previous = os.getcwd()
        os.chdir(directory)
        try:
            _, out_text, _ = run_in_process(
                ["check", "--no-cache", "--isolated", "--output-format", "json", "k.py"]
            )
        finally:
            os.chdir(previous)
    return tuple(f"{d['line']}:{d['column']} {d['code']}" for d in json.loads(out_text))


def _concise(out: str) -> dict[str, list[str]]:
    """Each path's findings (`line:column code`) in concise output."""
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        head, separator, _ = line.partition(" [")
        parts = head.rsplit(":", 4)
        if not separator or len(parts) != 5 or not parts[3].strip().startswith(("error", "warning")):
            continue
        path, row, column, _, code = parts
        found.setdefault(path, []).append(f"{row}:{column} {code.strip()}")
    return found


# -- permissions --------------------------------------------------------------------------------
@cache
def unprivileged_prefix() -> tuple[str, ...] | None:
    """What runs a command bound by mode bits (root loses its DAC override); None: nothing here."""
    if os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        return None
    with tempfile.TemporaryDirectory() as directory:
        closed = os.path.join(directory, "closed")
        open(closed, "w").close()
        os.chmod(closed, 0)
        probe = subprocess.run([*SETPRIV, "test", "-r", closed], capture_output=True)
    return tuple(SETPRIV) if probe.returncode == 1 else None


FILE_MODES = [0, 0o200, 0o400, 0o444, 0o600]
DIRECTORY_MODES = [0, 0o100, 0o300, 0o500, 0o600, 0o700]


def permissions_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
    prefix = unprivileged_prefix()
    if prefix is None:
        return "no way to drop root's DAC override here", None
    tree = os.path.join(directory, "tree")
    folders = [""]
    for index in range(rng.randint(1, 4)):
        folders.append(os.path.join(rng.choice(folders), f"d{index}"))
        os.makedirs(os.path.join(tree, folders[-1]))
    files: dict[str, bool] = {}  # relative path -> holds KERNEL
    for index in range(rng.randint(1, 6)):
        path = os.path.join(rng.choice(folders), f"k{index}.py")
        files[path] = rng.random() < 0.7
        with open(os.path.join(tree, path), "w", encoding="utf-8") as out:
            out.write(KERNEL if files[path] else CLEAN)
    with open(os.path.join(tree, "pyproject.toml"), "w", encoding="utf-8") as out:
        out.write("[tool.tilecheck]\n")
    configs = []
    for folder in rng.sample(folders[1:], rng.randint(0, len(folders) - 1)):
        configs.append(os.path.join(folder, ".tilecheck.toml"))
        with open(os.path.join(tree, configs[-1]), "w", encoding="utf-8") as out:
            out.write("")  # a configuration root that changes no finding
    cached = rng.random() < 0.4  # the default cache, .tilecheck_cache in the tree
    named = rng.random() < 0.3  # every file on the command line, rather than a walk
    targets = sorted(files) if named else ["."]
    arguments = ["check", "--output-format", "concise", *([] if cached else ["--no-cache"]), *targets]
    if cached:
        _tilecheck(directory, tree, arguments, list(prefix))  # a warm cache, then restricted
    modes: dict[str, int] = {}
    candidates = [*folders[1:], *files, *configs, *([".tilecheck_cache"] if cached else [])]
    for path in rng.sample(candidates, rng.randint(1, min(3, len(candidates)))):
        modes[path] = rng.choice(DIRECTORY_MODES if os.path.isdir(os.path.join(tree, path)) else FILE_MODES)
    for path in sorted(modes, key=len, reverse=True):  # deepest first, while they can be reached
        os.chmod(os.path.join(tree, path), modes[path])
    shown = ", ".join(f"{path or '.'}={mode:o}" for path, mode in sorted(modes.items()))
    tried = f"modes {shown}{' (cached)' if cached else ''}{' (named)' if named else ''}"
    try:
        status, printed, err = _tilecheck(directory, tree, arguments, list(prefix))
    finally:
        for path in modes:
            os.chmod(os.path.join(tree, path), 0o700 if os.path.isdir(os.path.join(tree, path)) else 0o600)
    return tried, _judge_permissions(status, printed, err, files, modes, configs, named)


def _mode(modes: dict[str, int], path: str) -> int:
    return modes.get(path, 0o700)


def _reachable(modes: dict[str, int], path: str, need: int) -> bool:
    """Whether every folder above `path` has the permissions `need` (to list and search it in a
    walk, to search it for a path named)."""
    folder = os.path.dirname(path)
    while folder:
        if _mode(modes, folder) & need != need:
            return False
        folder = os.path.dirname(folder)
    return True


def _judge_permissions(
    status: int,
    out: str,
    err: str,
    files: dict[str, bool],
    modes: dict[str, int],
    configs: list[str],
    named: bool,
) -> str | None:
    if "Traceback" in err or status not in (0, 1, 2):
        return f"status {status}: {err[-300:]}"
    if status == 2:
        unreadable = [c for c in configs if c in modes and not modes[c] & 0o400]
        if "Cannot read configuration file" in err and any(c in err for c in unreadable):
            return None
        return f"status 2 without an unreadable configuration file: {err[-300:]}"
    found = _concise(out)
    for path, kernel in files.items():
        if named and not _reachable(modes, path, 0o100):
            if found.get(path) != ["1:1 TL003"]:
                return f"{path} is named but cannot be looked up: expected TL003, got {found.get(path)}"
            continue
        if not named and not _reachable(modes, path, 0o500):
            blocked = [f for f in found if path.startswith(f + os.sep)]
            if not any("TL003" in " ".join(found[f]) for f in blocked) and path not in found:
                return f"{path} is behind a folder it cannot enter, and nothing says so"
            continue
        if not _mode(modes, path) & 0o400:
            if found.get(path) != ["1:1 TL003"]:
                return f"{path} is unreadable: expected TL003, got {found.get(path)}"
        elif found.get(path, []) != (list(kernel_findings()) if kernel else []):
            return f"{path}: expected its findings, got {found.get(path)}"
    warnings = err.count("warning:")
    if warnings > 1:
        return f"{warnings} warnings (at most one is expected): {err[-300:]}"
    return None


# -- shadowing trees ----------------------------------------------------------------------------
_IMPORTED = """
import contextlib, io, json, sys
from tilecheck.cli.main import main
for arguments in (["check", "k.py"], ["lower", "k.py"], ["explain", "k.py"], ["inventory", "k.py"]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(arguments)
import tilecheck.server.server, tilecheck.server.worker, multiprocessing.spawn, multiprocessing.forkserver
import multiprocessing.resource_tracker
print(json.dumps(sorted({name.partition(".")[0] for name in sys.modules})))
"""
NOT_SHADOWABLE = {"tilecheck", "rules", "tests", "tools", "__main__"}
# CPython 3.10 imports `runpy` from the working directory for any `python -m` (not tilecheck's doing).
CPYTHON_OWN = {"runpy"} if sys.version_info < (3, 11) else set()
FRONT_ENDS = [
    ["check", "k.py"], ["check", "--output-format", "sarif", "."], ["check", "--diff", "k.py"], ["lower", "k.py"],
    ["explain", "k.py"], ["inventory", "k.py"], ["debug-config", "k.py"], ["rule", "TL104"], ["--version"],
    ["server"],
]  # fmt: skip


@cache
def shadowable() -> tuple[str, ...]:
    """Every top-level module a run imports, and the standard library's, that a tree can shadow."""
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "k.py"), "w", encoding="utf-8") as out:
            out.write(KERNEL)
        command = [sys.executable, "-I", "-c", _IMPORTED]
        output = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=True).stdout
    names = set(json.loads(output)) | set(getattr(sys, "stdlib_module_names", ()))
    names -= set(sys.builtin_module_names) | NOT_SHADOWABLE | CPYTHON_OWN
    return tuple(sorted(n for n in names if n.isidentifier() and not n.startswith("__editable")))


def shadowing_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
    tree, markers = os.path.join(directory, "tree"), os.path.join(directory, "markers")
    os.makedirs(tree)
    os.makedirs(markers)
    names = shadowable()
    chosen = rng.sample(names, rng.randint(1, len(names))) if rng.random() < 0.7 else list(names)
    form = rng.choice(["module", "package", "both"])
    for name in chosen:
        marker = f"open({os.path.join(markers, name)!r}, 'w').close()\n"
        if form != "package":
            with open(os.path.join(tree, f"{name}.py"), "w", encoding="utf-8") as out:
                out.write(marker)
        if form != "module":
            os.makedirs(os.path.join(tree, name))
            with open(os.path.join(tree, name, "__init__.py"), "w", encoding="utf-8") as out:
                out.write(marker)
    with open(os.path.join(tree, "k.py"), "w", encoding="utf-8") as out:
        out.write(KERNEL)
    arguments = rng.choice(FRONT_ENDS)
    how = "script" if rng.random() < 0.5 and os.path.exists(SCRIPT) else "module"
    command = [SCRIPT] if how == "script" else [sys.executable, "-m", "tilecheck"]
    tried = f"{how} {' '.join(arguments)}, {len(chosen)} names as {form}"
    if arguments == ["server"]:
        problem = _serve_one_document([*command, "server"], directory, tree)
    else:
        done = subprocess.run(
            [*command, *arguments],
            cwd=tree,
            env=_environment(directory),
            capture_output=True,
            text=True,
            timeout=300,
        )
        problem = f"status {done.returncode}: {done.stderr[-300:]}" if "Traceback" in done.stderr else None
        if problem is None and arguments[0] == "check" and done.returncode != 1:
            problem = f"check gave status {done.returncode}: {done.stderr[-300:]}"
    executed = sorted(os.listdir(markers))
    if executed:
        return tried, f"the tree's modules ran: {executed[:10]}"
    return tried, problem


def _serve_one_document(command: list[str], directory: str, tree: str) -> str | None:
    """Open k.py in a server started in `tree`, wait for its diagnostics, shut it down."""
    uri = "file://" + os.path.join(tree, "k.py")
    server = subprocess.Popen(
        command, cwd=tree, env=_environment(directory), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    opening: list[dict[str, Any]] = [
        {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": "file://" + tree, "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {"method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": KERNEL}}},
    ]  # fmt: skip
    try:
        server.stdin.write(b"".join(frame(message) for message in opening))
        server.stdin.flush()
        diagnostics = wait_for_diagnostics(server.stdout.fileno(), uri, deadline=time.monotonic() + 300)
        server.stdin.write(frame({"id": 2, "method": "shutdown", "params": None}))
        server.stdin.write(frame({"method": "exit", "params": None}))
        server.stdin.flush()
        server.wait(timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        server.kill()
        return f"the server did not answer and end: {error}"
    finally:
        server.kill()
        errors = server.communicate()[1].decode("utf-8", "replace")
    if diagnostics is None:
        return f"no diagnostics for the document: {errors[-300:]}"
    codes = sorted(d.get("code", "") for d in diagnostics)
    expected = sorted(finding.split()[1] for finding in kernel_findings())
    return None if codes == expected else f"the server reported {codes}, not {expected}: {errors[-300:]}"


# -- path lengths -------------------------------------------------------------------------------
def paths_case(rng: random.Random, directory: str) -> tuple[str, str | None]:
    """Nested folders with long names up to and past PATH_MAX, kernels at random depths."""
    component = rng.choice([1, 16, 100, 200, 255])
    target = rng.choice([1000, 3500, 4000, 4090, 4100, 5000, 8000])
    kernels: list[str] = []
    relative = ""
    handle = os.open(directory, os.O_RDONLY)
    try:
        while len(relative) < target:
            if (
                rng.random() < min(0.3, 8 * (component + 1) / target)
                or len(relative) + component + 1 >= target
            ):
                name = rng.choice(["k.py", "k" * min(252, component) + ".py"])
                if name not in {os.path.basename(k) for k in kernels if os.path.dirname(k) == relative}:
                    with os.fdopen(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=handle), "w") as out:
                        out.write(KERNEL)
                    kernels.append(os.path.join(relative, name))
            folder = "d" * component
            os.mkdir(folder, dir_fd=handle)
            inner = os.open(folder, os.O_RDONLY, dir_fd=handle)
            os.close(handle)
            handle, relative = inner, os.path.join(relative, folder)
    finally:
        os.close(handle)
    named = rng.random() < 0.3 and kernels
    argument = (
        (kernels[-1] if rng.random() < 0.5 else rng.choice(kernels)) if named else "."
    )  # the deepest, often
    output_format = rng.choice(["json-lines", "sarif", "concise", "full", "github"])
    tried = f"{len(kernels)} kernels, folders of {component} to {len(relative)} characters, {'named' if named else 'walked'}"
    outcome = run_in_process(["check", "--no-cache", "--isolated", "--output-format", "json", argument])
    problem = _judge_paths(outcome, kernels if not named else [argument], directory)
    if problem is None:
        status, out_text, err = run_in_process(
            ["check", "--no-cache", "--isolated", "--output-format", output_format, argument]
        )
        if "Traceback" in err or status != 1:
            problem = f"{output_format}: status {status}: {err[-300:]}"
        else:
            problem = _invalid(output_format, out_text)
    return tried, problem


def _judge_paths(outcome: Outcome, kernels: list[str], directory: str) -> str | None:
    status, out_text, err = outcome
    if "Traceback" in err or status != 1:
        return f"json: status {status}: {err[-300:]}"
    found: dict[str, list[str]] = {}
    for item in json.loads(out_text):
        path = (
            os.path.relpath(item["path"]) if os.path.isabs(item["path"]) else os.path.normpath(item["path"])
        )
        found.setdefault(path, []).append(f"{item['line']}:{item['column']} {item['code']}")
    expected = list(kernel_findings())
    for kernel in kernels:
        if found.get(kernel) == expected:
            continue
        cut = [p for p in found if (kernel == p or kernel.startswith(p + os.sep)) and "TL003" in found[p][0]]
        if cut:
            continue
        if len(os.path.join(directory, kernel)) < PATH_MAX - 100:
            return (
                f"{kernel[:60]}... ({len(kernel)} characters): expected its findings, got {found.get(kernel)}"
            )
        return f"{kernel[:60]}... ({len(kernel)} characters): neither its findings nor a TL003 above it"
    return None


def _invalid(output_format: str, text: str) -> str | None:
    try:
        text.encode("utf-8")
        if output_format == "sarif":
            json.loads(text)
        elif output_format == "json-lines":
            [json.loads(line) for line in text.split("\n") if line]  # not splitlines: U+0085 may be in a name
    except (UnicodeEncodeError, ValueError) as error:
        return f"{output_format}: {error}"
    return None
