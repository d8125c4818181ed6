"""One codec between diagnostics and JSON: every field survives the round trip, through the
`json` report's record and through the result cache."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tilecheck.core import codec
from tilecheck.core.types import Diagnostic, Edit, Fix, Grade, Related, Severity, Span

text = st.text(max_size=20)
paths = st.sampled_from(["k.py", "pkg/common.py", "/abs/other.py"])


@st.composite
def spans(draw: st.DrawFn) -> Span:
    line, column = draw(st.integers(1, 500)), draw(st.integers(0, 200))
    return Span(line, column, line + draw(st.integers(0, 5)), draw(st.integers(0, 200)))


diagnostics = st.builds(
    Diagnostic,
    path=st.just("k.py"),
    span=spans(),
    code=st.sampled_from(["TL101", "TL904", "XX1"]),
    rule=text,
    grade=st.sampled_from(list(Grade)),
    severity=st.sampled_from(list(Severity)),
    message=text,
    help=st.none() | text,
    fix=st.none()
    | st.builds(Fix, text, st.lists(st.builds(Edit, spans(), text), max_size=3).map(tuple), st.booleans()),
    notes=st.lists(text, max_size=3).map(tuple),
    related=st.lists(
        st.builds(Related, spans(), text, st.none() | paths.filter(lambda p: p != "k.py")), max_size=3
    ).map(tuple),
    caused_by=st.none() | st.tuples(st.sampled_from(["TL102"]), spans()),
)


@given(diagnostics)
def test_every_field_round_trips(diagnostic):
    record = json.loads(json.dumps(codec.encode(diagnostic)))
    assert codec.decode(record) == diagnostic


@given(diagnostics)
def test_a_record_written_without_the_path_is_read_under_the_given_one(diagnostic):
    assert codec.decode(codec.encode(diagnostic, ""), "k.py") == diagnostic


def test_the_record_is_the_json_reports_with_1_based_columns():
    diagnostic = Diagnostic(
        "k.py",
        Span(3, 4, 3, 9),
        "TL103",
        "tile-op-in-parallel",
        Grade.SEMANTIC,
        Severity.ERROR,
        "m",
        related=(Related(Span(1, 0, 1, 2), "here"), Related(Span(2, 0, 2, 1), "there", "c.py")),
        caused_by=("TL102", Span(2, 8, 2, 20)),
    )
    assert codec.encode(diagnostic, "shown.py", lambda other: f"shown/{other}") == {
        "path": "shown.py",
        "line": 3,
        "column": 5,
        "end_line": 3,
        "end_column": 10,
        "code": "TL103",
        "rule": "tile-op-in-parallel",
        "grade": "semantic",
        "severity": "error",
        "message": "m",
        "help": None,
        "notes": [],
        "related": [
            {"path": "shown.py", "line": 1, "column": 1, "end_line": 1, "end_column": 3, "message": "here"},
            {
                "path": "shown/c.py",
                "line": 2,
                "column": 1,
                "end_line": 2,
                "end_column": 2,
                "message": "there",
            },
        ],
        "fix": None,
        "caused_by": {"code": "TL102", "line": 2, "column": 9, "end_line": 2, "end_column": 21},
    }
    assert "caused_by" not in codec.encode(
        Diagnostic("k.py", Span(1, 0, 1, 0), "X", "x", Grade.META, Severity.INFO, "m")
    )
