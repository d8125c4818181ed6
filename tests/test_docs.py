"""docs/rules.md is generated from the rule classes and must stay in sync with them."""

import pathlib

import pytest

from tilecheck.core.docs import document, main
from tilecheck.core.registry import builtin_rules
from tilecheck.lint.testing import documentation_problems

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_rules_md_is_in_sync():
    expected = document(builtin_rules())
    assert DOCS.read_text(encoding="utf-8") == expected, (
        "docs/rules.md is stale: run `python -m tilecheck.core.docs docs/rules.md`"
    )


def test_every_rule_has_an_entry_and_an_anchor():
    text = DOCS.read_text(encoding="utf-8")
    for rule in builtin_rules():
        assert f"\n## {rule.NAME} ({rule.CODE})\n" in text
        assert (
            f"| [{rule.CODE}](#{rule.NAME}-{rule.CODE.lower()}) | {rule.NAME} | {rule.GRADE.value} |" in text
        )


@pytest.mark.parametrize("rule", builtin_rules(), ids=lambda rule: rule.CODE)
def test_built_in_rules_are_fully_documented(rule):
    assert documentation_problems(rule) == []


def test_generator_writes_the_file(tmp_path, capsys):
    target = tmp_path / "rules.md"
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == document(builtin_rules())
    assert main([]) == 0
    assert capsys.readouterr().out == document(builtin_rules())


def test_documentation_problems_names_what_is_missing():
    from tilecheck.core.rule import Rule
    from tilecheck.core.types import Grade

    class Bare(Rule):
        """Summary only.

        ## What it does
        Something.
        """

        CODE = "XX001"
        NAME = "bare"
        GRADE = Grade.SEMANTIC

    assert documentation_problems(Bare) == [
        "XX001 lacks the `## Why is this bad?` section",
        "XX001 lacks the `## Example` section",
        "XX001 lacks the `## Use instead` section",
        "XX001 lacks the `## Backends` section",
        "XX001 has a summary shorter than 24 characters: 'Summary only.'",
        "XX001 lacks the rule-design checklist (CHECKLIST)",
        "XX001 has no HELP line",
    ]


# Every TileLang path the rule pages cite, checked to exist in the released TileLang 0.1.15
# (`tilelang/...` in the wheel, `src/...` under the wheel's `tilelang/src/`), and the skill
# documents, which exist only on TileLang's main branch, pinned to a commit that has them.
TILELANG = "https://github.com/tile-ai/tilelang/blob/"
CITED_AT_V0_1_15 = {
    "src/ascend/transform/auto_schedule.cc",
    "src/transform/inject_pipeline.cc",
    "src/transform/legalize_vectorized_loop.cc",
    "src/transform/loop_vectorize.cc",
    "src/transform/pipeline_planning.cc",
    "src/transform/vectorize_loop.cc",
    "tilelang/analysis/fragment_loop_checker.py",
    "tilelang/analysis/nested_loop_checker.py",
    "tilelang/analysis/parallel_local_index_checker.py",
    "tilelang/language/eager/builder.py",
    "tilelang/language/loop.py",
}
CITED_SKILL_DOCUMENTS = {
    "6ebc5ba7fe821832b0e49d699396a02b14d80a4b/.agents/skills/tilelang-semantic/references/loop-rules.md",
    "6ebc5ba7fe821832b0e49d699396a02b14d80a4b/.agents/skills/tilelang-semantic/scripts/scan_loop_nesting.py",
}


def _tilelang_rule_pages() -> str:
    from tilecheck.core.docs import markdown

    return "\n".join(markdown(rule) for rule in builtin_rules() if rule.CODE[2] in "123")


def test_rule_pages_cite_tilelang_by_url_not_internal_documents():
    import re

    text = _tilelang_rule_pages()
    for forbidden in ("§", "reference §", "(reference", "loop-rules.md)", "tilelang.md"):
        assert forbidden not in re.sub(r"\(https://[^)]*\)", "", text), forbidden
    cited = set(re.findall(re.escape(TILELANG) + r"([^)\s]+)\)", text))
    versioned = {url.removeprefix("v0.1.15/") for url in cited if url.startswith("v0.1.15/")}
    assert versioned == CITED_AT_V0_1_15
    assert cited - {f"v0.1.15/{path}" for path in versioned} == CITED_SKILL_DOCUMENTS


def test_cited_paths_exist_in_tilelang_0_1_15():
    import os

    # where `make oracle` puts it (tools/oracle/setup.sh), unless ORACLE_VENV says otherwise
    default = pathlib.Path(__file__).resolve().parents[1] / ".oracle-venv"
    site = pathlib.Path(os.environ.get("ORACLE_VENV", default)) / "lib"
    packages = sorted(site.glob("python3*/site-packages/tilelang"))
    if not packages:
        pytest.skip("TileLang 0.1.15 is not installed (ORACLE_VENV); `make oracle` installs it")
    package = packages[0]
    for path in CITED_AT_V0_1_15:
        local = package / path.removeprefix("tilelang/") if path.startswith("tilelang/") else package / path
        assert local.is_file(), path


def test_unsafe_fixes_say_why_and_pages_end_with_the_backends():
    from tilecheck.core.docs import markdown
    from tilecheck.core.registry import by_code

    for code in ("TL104", "TL903"):
        assert "unsafe because" in markdown(by_code(code))
    page = markdown(by_code("TL101"))
    assert page.split("\n## ")[-1].startswith("Backends\n")


@pytest.mark.parametrize("rule", [r for r in builtin_rules() if r.CHECKLIST], ids=lambda rule: rule.CODE)
def test_design_notes_stay_beside_the_code_and_out_of_what_users_read(rule):
    from tilecheck.core.docs import as_json, brief, markdown
    from tilecheck.report.sarif import rule_descriptor

    assert rule.CHECKLIST is not None  # the maintainers' notes, in the rule's class
    shape = rule.CHECKLIST.shape
    for text in (markdown(rule), brief(rule), str(as_json(rule)), str(rule_descriptor(rule))):
        assert "Design notes" not in text and "Legal rewrite" not in text
        assert "What IR shape identifies it" not in text and shape not in text


def test_brief_is_one_paragraph_the_fix_and_the_command():
    from tilecheck.core.docs import brief
    from tilecheck.core.registry import by_code

    text = brief(by_code("TL101"))
    assert text.split("\n\n") == [
        "Reports a `T.Parallel` loop inside another `T.Parallel` loop when the inner loop is\n"
        "not the entire body of the outer one. The message says what broke the chain: a\n"
        "statement before or after the inner loop, a sibling loop, a wrapper loop (`T.serial`,\n"
        "`T.grid`, `range`, ...), a runtime `if`, an assignment that becomes a Bind statement,\n"
        "or a macro argument that does.",
        "**Fix:** Make the inner `T.Parallel` the only statement of the outer one: move other statements"
        " into a loop of their own, or fuse both loops into one `T.Parallel(M, N)`.",
        "Full documentation: `tilecheck rule TL101`\n",
    ]
    linked = brief(by_code("TL101"), href="https://example.org/rules.md#nested-parallel-tl101")
    assert linked.endswith("\n\n[Full documentation](https://example.org/rules.md#nested-parallel-tl101)\n")


def test_a_backends_section_that_names_cuda_profiles_names_every_one():
    # A page listing where a rule fires must not leave out a shipped CUDA profile (cuda-sm86 and
    # cuda-sm89 were added after the pages were written and behave as cuda-sm80 does).
    from tilecheck.backends.profile import shipped
    from tilecheck.core.docs import markdown

    cuda = sorted(name for name in shipped() if name.startswith("cuda-"))
    for rule in builtin_rules():
        backends = markdown(rule).split("\n## Backends\n")[-1]
        named = [name for name in cuda if f"`{name}`" in backends]
        if named:
            assert named == cuda, (rule.CODE, sorted(set(cuda) - set(named)))
