"""Plugins: local rule modules named in the configuration and installed entry points."""

import itertools
import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import KERNEL, run, write
from tilecheck.config import plugins
from tilecheck.core.rule import Rule
from tilecheck.core.types import Grade
from tilecheck.lint.testing import documentation_problems, example_cases

_names = itertools.count()

RULE_MODULE = '''
from tilecheck.core.rule import Invalid, Rule, Valid
from tilecheck.core.types import Grade, Span


class NoForbidden(Rule):
    """The word `forbidden` in a kernel file.

    ## What it does
    Reports the first line mentioning `forbidden`.

    ## Why is this bad?
    It is forbidden.

    ## Example
    ```python
    forbidden = 1
    ```

    ## Use instead
    ```python
    allowed = 1
    ```

    ## Backends
    All.
    """

    CODE = "KX101"
    NAME = "no-forbidden"
    GRADE = Grade.CONTRACT
    HELP = "Rename it."
    VALID = [Valid("allowed = 1\\n")]
    INVALID = [Invalid("x = 1\\nforbidden = 2\\n", at=((2, 1),))]

    def check(self, ctx):
        for number, line in enumerate(ctx.source.splitlines(), 1):
            if "forbidden" in line.split("#")[0]:
                ctx.report_at(Span(number, 0, number, len(line)), "`forbidden` is forbidden")
                return
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TILECHECK_OUTPUT_FORMAT", raising=False)
    monkeypatch.setenv("TILECHECK_ALLOW_PLUGINS", "1")  # the tests below trust their trees
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    package = f"lint_rules_{next(_names)}"
    before = set(sys.modules)
    yield tmp_path, package
    for name in set(sys.modules) - before:
        if name.startswith(("lint_rules_", "tc_plugin_", "tilecheck_local_plugins_")):
            del sys.modules[name]


def configure(root, package, body=RULE_MODULE, config_dir=""):
    write(
        root,
        {
            f"{config_dir}tilecheck.toml": f'plugins = ["{package}.rules"]\n',
            f"{config_dir}{package}/__init__.py": "",
            f"{config_dir}{package}/rules.py": textwrap.dedent(body),
        },
    )


def test_local_plugin_runs_and_is_selectable(project, capsys):
    root, package = project
    configure(root, package)
    write(root, {"k.py": KERNEL + "forbidden = 1\n"})
    outcome = run(capsys, "k.py", "--output-format", "json")
    assert outcome.findings() == [
        ("k.py", 10, 13, "TL104"),
        ("k.py", 12, 13, "TL105"),
        ("k.py", 15, 22, "TL101"),
        ("k.py", 17, 1, "KX101"),
    ]
    for selector in ("KX101", "KX", "no-forbidden"):
        assert run(capsys, "k.py", "--select", selector, "--output-format", "json").findings() == [
            ("k.py", 17, 1, "KX101")
        ]
    assert [f[3] for f in run(capsys, "k.py", "--ignore", "KX", "--output-format", "json").findings()] == [
        "TL104",
        "TL105",
        "TL101",
    ]


def test_local_plugin_rules_can_be_suppressed_and_explained(project, capsys):
    root, package = project
    configure(root, package)
    write(root, {"k.py": "forbidden = 1  # tilecheck: ignore[no-forbidden]\nforbidden = 2\n"})
    assert run(capsys, "k.py", "--output-format", "json").findings() == []
    listing = run(capsys, "rules").out.splitlines()
    assert any(line.startswith("KX101  no-forbidden") and "contract" in line for line in listing)
    explained = run(capsys, "rule", "KX101").out
    assert explained.startswith("# no-forbidden (KX101)\n\nThe word `forbidden` in a kernel file.\n")
    assert (
        json.loads(run(capsys, "rule", "no-forbidden", "--output-format", "json").out)["grade"] == "contract"
    )


def test_local_plugins_load_only_when_configured(project, capsys):
    root, package = project
    configure(root, package, config_dir="configured/")
    write(root, {"other/k.py": "forbidden = 1\n", "configured/k.py": "forbidden = 1\n"})
    outcome = run(capsys, "other/k.py", "--output-format", "json")
    assert (outcome.status, outcome.findings()) == (0, [])
    assert not any(name.endswith(f"{package}.rules") for name in sys.modules)
    outcome = run(capsys, "configured/k.py", "--output-format", "json")
    assert outcome.findings() == [("k.py", 1, 1, "KX101")]


def test_plugin_rules_pass_their_own_examples(project):
    root, package = project
    configure(root, package)
    [rule] = plugins.load_local(f"{package}.rules", str(root), "test")
    cases = example_cases([rule])
    assert [case.id for case in cases] == ["KX101-VALID-0", "KX101-INVALID-0"]
    for case in cases:
        case.run()
    assert documentation_problems(rule) == ["KX101 lacks the rule-design checklist (CHECKLIST)"]


BROKEN = {
    "import error": (
        "import not_a_module_anywhere\n",
        "failed to load: ModuleNotFoundError: No module named 'not_a_module_anywhere'",
    ),
    "syntax error": ("def (:\n", "failed to load: SyntaxError: invalid syntax"),
    "raises": ("raise RuntimeError('no GPU')\n", "failed to load: RuntimeError: no GPU"),
    "exits": ("import sys\nsys.exit(3)\n", "failed to load: SystemExit: 3"),
    "no rules": ("x = 1\n", "defines no rules"),
    "bad code": (
        RULE_MODULE.replace('"KX101"', '"kx-1"'),
        "rule NoForbidden: CODE must be letters then digits, like `KX101` (got 'kx-1')",
    ),
    "reserved code": (
        RULE_MODULE.replace('"KX101"', '"TL150"'),
        "the code prefix `TL` is reserved for built-in rules (got `TL150`)",
    ),
    "bad name": (RULE_MODULE.replace('"no-forbidden"', '"NoForbidden"'), "NAME must be kebab-case"),
    "bad grade": (
        RULE_MODULE.replace("Grade.CONTRACT", "'contract'"),
        "GRADE must be Grade.SEMANTIC, Grade.CONTRACT or Grade.OPTIMIZATION",
    ),
    "no check": (RULE_MODULE.split("    def check")[0], "it does not define check(self, ctx)"),
    "duplicate name": (
        RULE_MODULE.replace('"no-forbidden"', '"nested-parallel"'),
        "two rules use `nested-parallel`",
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_local_plugin_is_a_clear_error(project, capsys, case):
    root, package = project
    body, message = BROKEN[case]
    configure(root, package, body)
    write(root, {"k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert outcome.out == ""
    assert "Traceback" not in outcome.err
    assert outcome.err.startswith("tilecheck: error: ")
    assert message in outcome.err, outcome.err
    if case != "duplicate name":
        assert f"plugin `{package}.rules` (configured in tilecheck.toml)" in outcome.err


def test_missing_local_plugin(project, capsys):
    root, _ = project
    write(root, {"tilecheck.toml": 'plugins = ["kernels.nope"]\n', "k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert (outcome.status, outcome.err) == (
        2,
        "tilecheck: error: plugin `kernels.nope` (configured in tilecheck.toml) failed to load: "
        "ModuleNotFoundError: No module named 'kernels'\n",
    )


def test_crashing_plugin_rule_exits_2_and_names_the_rule(project, capsys):
    root, package = project
    configure(
        root,
        package,
        RULE_MODULE.replace("for number, line in", "raise ValueError('oops')\n        for number, line in"),
    )
    write(root, {"k.py": KERNEL})
    outcome = run(capsys, "k.py", "--output-format", "concise")
    assert outcome.status == 2
    assert (
        outcome.out.splitlines()[0]
        == "k.py:1:1: error: TL005 [meta] Rule KX101 (no-forbidden) crashed: ValueError: oops"
    )


# -- entry points -------------------------------------------------------------------------------------


def install(site, module, entry_value, body):
    name = f"tc-plugin-{module}"
    write(
        site,
        {
            f"{module}.py": textwrap.dedent(body),
            f"{name.replace('-', '_')}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
            f"{name.replace('-', '_')}-1.0.dist-info/entry_points.txt": f"[tilecheck.rules]\nextra = {entry_value}\n",
        },
    )


@pytest.fixture
def site(tmp_path, monkeypatch):
    directory = tmp_path / "site"
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))
    plugins.entry_point_rules.cache_clear()
    yield directory
    plugins.entry_point_rules.cache_clear()


@pytest.mark.parametrize("target", ["module", "class"])
def test_installed_plugin_is_loaded_through_its_entry_point(project, site, capsys, target):
    root, _ = project
    module = f"tc_plugin_{next(_names)}"
    install(site, module, module if target == "module" else f"{module}:NoForbidden", RULE_MODULE)
    write(root, {"k.py": "forbidden = 1\n"})
    outcome = run(capsys, "k.py", "--output-format", "json")
    assert outcome.findings() == [("k.py", 1, 1, "KX101")]
    assert "KX101  no-forbidden" in run(capsys, "rules").out


def test_broken_installed_plugin_is_a_clear_error(project, site, capsys):
    root, _ = project
    module = f"tc_plugin_{next(_names)}"
    install(site, module, f"{module}:Missing", RULE_MODULE)
    write(root, {"k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert outcome.err.startswith(
        f"tilecheck: error: plugin `extra` (entry point `{module}:Missing` of tc-plugin-{module} 1.0) failed to load: AttributeError"
    )
    assert "Traceback" not in outcome.err


# -- trust: local plugins run only when the user opted in ---------------------------------------------


@pytest.fixture
def untrusted(project, monkeypatch):
    monkeypatch.delenv("TILECHECK_ALLOW_PLUGINS")
    root, package = project
    configure(root, package, config_dir="repo/")
    write(root, {"repo/sub/deeper/k.py": "forbidden = 1\n"})
    return root, package


def _loaded(package):
    return any(name.endswith(f".{package}.rules") for name in sys.modules)


def test_untrusted_local_plugin_is_not_imported_and_warns_once(untrusted, capsys):
    root, package = untrusted
    outcome = run(capsys, "repo/sub/deeper/k.py", "--output-format", "json")
    assert (outcome.status, outcome.findings()) == (0, [])
    assert not _loaded(package)
    assert outcome.err == (
        f"tilecheck: warning: repo/tilecheck.toml: local plugin `{package}.rules` not loaded: plugins run "
        "code from the checked tree. If you trust it, pass --allow-plugins, set TILECHECK_ALLOW_PLUGINS=1, "
        f"or add its directory to `roots` in {root / 'user-config' / 'tilecheck' / 'trusted.toml'}\n"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["repo/sub/deeper/k.py"],
        ["explain", "repo/sub/deeper/k.py"],
        ["debug-config", "repo/sub/deeper/k.py"],
        ["rules"],
        ["rule", "TL101"],
        ["backends"],
        ["repo/sub/deeper/k.py", "--fix"],
    ],
)
def test_no_command_imports_an_untrusted_plugin(untrusted, capsys, monkeypatch, command):
    root, package = untrusted
    if command[0] in ("rules", "rule", "backends"):
        monkeypatch.chdir(root / "repo" / "sub")
    outcome = run(capsys, *command)
    assert outcome.status in (0, 1), outcome.err
    assert not _loaded(package)
    assert "local plugin" in outcome.err and "not loaded" in outcome.err


def test_selectors_naming_an_untrusted_plugin_are_not_errors(untrusted, capsys):
    root, package = untrusted
    write(root, {"repo/tilecheck.toml": f'plugins = ["{package}.rules"]\nextend-select = ["KX101"]\n'})
    outcome = run(capsys, "repo/sub/deeper/k.py", "--ignore", "no-forbidden", "--output-format", "json")
    assert (outcome.status, outcome.findings()) == (0, [])


@pytest.mark.parametrize("how", ["flag", "environment", "trust file"])
def test_opting_in_loads_the_plugin(untrusted, capsys, monkeypatch, how):
    root, _ = untrusted
    args = ["repo/sub/deeper/k.py", "--output-format", "json"]
    if how == "flag":
        args.append("--allow-plugins")
    elif how == "environment":
        monkeypatch.setenv("TILECHECK_ALLOW_PLUGINS", "1")
    else:
        write(root, {"user-config/tilecheck/trusted.toml": f'roots = ["{root / "repo"}"]\n'})
    outcome = run(capsys, *args)
    assert outcome.findings() == [("k.py", 1, 1, "KX101")]
    assert outcome.err == ""


def test_trust_file_trusts_only_its_roots(untrusted, capsys):
    root, _ = untrusted
    write(root, {"user-config/tilecheck/trusted.toml": f'roots = ["{root / "elsewhere"}"]\n'})
    outcome = run(capsys, "repo/sub/deeper/k.py", "--output-format", "json")
    assert outcome.findings() == [] and "not loaded" in outcome.err


def test_environment_can_refuse_what_the_trust_file_allows(untrusted, capsys, monkeypatch):
    root, package = untrusted
    write(root, {"user-config/tilecheck/trusted.toml": f'roots = ["{root}"]\n'})
    monkeypatch.setenv("TILECHECK_ALLOW_PLUGINS", "0")
    assert run(capsys, "repo/sub/deeper/k.py", "--output-format", "json").findings() == []
    assert not _loaded(package)


def test_two_trees_with_a_plugin_of_the_same_name_get_their_own(project, capsys):
    root, _ = project
    other = RULE_MODULE.replace('"KX101"', '"KY101"').replace('"no-forbidden"', '"no-forbidden-either"')
    for tree, body in (("a", RULE_MODULE), ("b", other)):
        write(
            root,
            {
                f"{tree}/tilecheck.toml": 'plugins = ["lintrules"]\n',
                f"{tree}/lintrules.py": textwrap.dedent(body),
                f"{tree}/k.py": "forbidden = 1\n",
            },
        )
    outcome = run(capsys, "a", "b", "--output-format", "json")
    assert [(d["path"], d["code"]) for d in json.loads(outcome.out)] == [
        ("a/k.py", "KX101"),
        ("a/lintrules.py", "KX101"),  # the rule module mentions the word too
        ("b/k.py", "KY101"),
        ("b/lintrules.py", "KY101"),
    ]
    assert "lintrules" not in sys.modules


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("raise KeyboardInterrupt\n", "failed to load: KeyboardInterrupt"),
        ("raise SystemExit(0)\n", "failed to load: SystemExit: 0"),
    ],
)
def test_plugin_interrupting_its_import_is_a_plugin_error(project, capsys, body, message):
    root, package = project
    configure(root, package, body)
    write(root, {"k.py": KERNEL})
    outcome = run(capsys, "k.py")
    assert outcome.status == 2
    assert f"plugin `{package}.rules` (configured in tilecheck.toml) {message}" in outcome.err


class _Recurses(Rule):
    """Recurses until the stack runs out."""

    CODE = "XK910"
    NAME = "recurses-forever"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        def deeper(n):
            return deeper(n + 1) + 1

        deeper(0)


class _Exhausts(Rule):
    """Runs out of memory."""

    CODE = "XK911"
    NAME = "exhausts-memory"
    GRADE = Grade.SEMANTIC

    def check(self, ctx):
        raise MemoryError


@pytest.mark.parametrize(
    ("plugin", "crash"),
    [(_Recurses, "RecursionError: maximum recursion depth exceeded"), (_Exhausts, "MemoryError: ")],
)
def test_a_plugin_rule_out_of_stack_or_memory_is_its_crash_not_the_files(plugin, crash):
    # The file is not too complex: the plugin's bug is named (TL005), the built-in findings stay.
    from tilecheck.core.registry import builtin_rules
    from tilecheck.lint.engine import check_source

    source = (
        Path(__file__).resolve().parent.parent / "fixtures" / "examples" / "softmax_mistakes.py"
    ).read_text()
    result = check_source(source, "softmax.py", [*builtin_rules(), plugin])
    codes = [d.code for d in result.diagnostics]
    assert codes.count("TL005") == 1 and "TL004" not in codes
    assert codes.count("TL104") == 2 and "TL101" in codes
    (crashed,) = [d for d in result.diagnostics if d.code == "TL005"]
    assert crashed.message.startswith(f"Rule {plugin.CODE} ({plugin.NAME}) crashed: {crash}")
