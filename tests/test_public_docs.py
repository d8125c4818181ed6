"""What a user reads cites only what a user can open: public TileLang/PyPTO sources or files this
checkout ships. A link that points into a maintainer's workspace, or a section number of a
document that is not shipped, is a documentation bug."""

from __future__ import annotations

import pathlib
import re

import pytest

from tilecheck.core.docs import markdown
from tilecheck.core.registry import builtin_rules

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Names of documents that exist only in the maintainers' workspace, never in a checkout.
NOT_SHIPPED = (
    "../shared",
    "shared/reference",
    "pypto-lowering.md",
    "ecosystem.md",
    "reference/tilelang.md",
    "/work/",
)


def _user_facing() -> list[tuple[str, str]]:
    files = [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted((ROOT / "tilecheck" / "backends" / "profiles").glob("*.toml"))
    found = [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in files]
    found += [(f"rule page {rule.CODE}", markdown(rule)) for rule in builtin_rules()]
    return found


@pytest.mark.parametrize(("name", "text"), _user_facing(), ids=lambda value: value if len(value) < 60 else "")
def test_no_citation_of_unshipped_documents(name, text):
    for forbidden in NOT_SHIPPED:
        assert forbidden not in text, f"{name} cites {forbidden!r}"
    # `§7.2` numbers sections of the unshipped reference; no shipped document has numbered sections
    assert "§" not in text, f"{name} cites a section number of an unshipped document"


def test_relative_links_in_docs_point_at_shipped_files():
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("https://", "#", "mailto:")):
                continue
            assert not target.startswith("http://"), (path.name, target)
            local = (path.parent / target.split("#", 1)[0]).resolve()
            assert local.is_relative_to(ROOT) and local.exists(), (path.name, target)


def test_the_readme_calls_no_working_feature_reserved():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "reserved; see issue" not in readme
    assert not re.search(r"\bissue \d+\b", readme), "issue numbers mean nothing to a user"


def test_a_user_backend_profile_named_in_the_readme_works(tmp_path, capsys):
    from tests.support import run

    (tmp_path / "pyproject.toml").write_text(
        '[tool.tilecheck]\nbackend = "my-gpu"\n\n[tool.tilecheck.backends.my-gpu]\nbase = "cuda-sm90"\n'
    )
    shown = run(capsys, "backends", "my-gpu", "--config", str(tmp_path / "pyproject.toml"))
    assert shown.status == 0, shown.err
    assert "my-gpu" in shown.out
