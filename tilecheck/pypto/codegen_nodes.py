"""The text of each node type the lowering produces, exactly as libcst's `_codegen_impl` writes
it (the tests compare the two at every indentation); `codegen.Writer` dispatches on `HANDLERS`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, get_args

import libcst as cst

from tilecheck.pypto.stage import Clone, Fills, LoweredStatement, Stage

if TYPE_CHECKING:
    from tilecheck.pypto.codegen import Writer

_DEFAULT = cst.MaybeSentinel.DEFAULT


def _atom(writer: Writer, node: Atom) -> str:
    return writer.parens(node, node.value)


def _attribute(writer: Writer, node: cst.Attribute) -> str:
    return writer.parens(node, writer.code(node.value) + writer.code(node.dot) + writer.code(node.attr))


def _call(writer: Writer, node: cst.Call) -> str:
    ws = writer.ws
    inner = (
        writer.code(node.func)
        + ws(node.whitespace_after_func)
        + "("
        + ws(node.whitespace_before_args)
        + writer.args(node.args)
        + ")"
    )
    return writer.parens(node, inner)


def _binary(writer: Writer, node: cst.BinaryOperation | cst.BooleanOperation) -> str:
    code = writer.code
    return writer.parens(node, code(node.left) + code(node.operator) + code(node.right))


def _unary(writer: Writer, node: cst.UnaryOperation) -> str:
    return writer.parens(node, writer.code(node.operator) + writer.code(node.expression))


def _comparison(writer: Writer, node: cst.Comparison) -> str:
    code = writer.code
    parts = [code(node.left)]
    for target in node.comparisons:
        parts.append(code(target.operator))
        parts.append(code(target.comparator))
    return writer.parens(node, "".join(parts))


def _subscript(writer: Writer, node: cst.Subscript) -> str:
    last = len(node.slice) - 1
    parts = [
        writer.code(node.value),
        writer.ws(node.whitespace_after_value),
        "[" + writer.ws(node.lbracket.whitespace_after),
    ]
    for index, element in enumerate(node.slice):
        parts.append(writer.code(element.slice))
        parts.append(writer.comma(element.comma, index != last))
    parts.append(writer.ws(node.rbracket.whitespace_before) + "]")
    return writer.parens(node, "".join(parts))


def _index(writer: Writer, node: cst.Index) -> str:
    text: str = node.star or ""
    if node.whitespace_after_star is not None:
        text += writer.ws(node.whitespace_after_star)
    return text + writer.code(node.value)


def _list(writer: Writer, node: cst.List) -> str:
    return _bracketed(writer, node, node.lbracket, node.rbracket, "[]")


def _tuple(writer: Writer, node: cst.Tuple) -> str:
    return writer.parens(node, writer.elements(node.elements, single_tuple=True))


def _dict(writer: Writer, node: cst.Dict) -> str:
    return _bracketed(writer, node, node.lbrace, node.rbrace, "{}")


def _bracketed(
    writer: Writer,
    node: cst.List | cst.Dict,
    left: cst.LeftSquareBracket | cst.LeftCurlyBrace,
    right: cst.RightSquareBracket | cst.RightCurlyBrace,
    brackets: str,
) -> str:
    elements = writer.elements(node.elements)
    inner = (
        brackets[0]
        + writer.ws(left.whitespace_after)
        + elements
        + writer.ws(right.whitespace_before)
        + brackets[1]
    )
    return writer.parens(node, inner)


def _two_sided(writer: Writer, node: cst.Comma) -> str:
    """Comma, Dot, AssignEqual, Colon, Semicolon and the one-token binary/comparison ops."""
    return writer.ws(node.whitespace_before) + TOKENS[type(node)] + writer.ws(node.whitespace_after)


def _prefix_op(writer: Writer, node: cst.Minus) -> str:
    return TOKENS[type(node)] + writer.ws(node.whitespace_after)


def _parenthesized_whitespace(writer: Writer, node: cst.ParenthesizedWhitespace) -> str:
    text = writer.trailing(node.first_line) + writer.lines(node.empty_lines)
    if node.indent:
        text += writer.indent
    return text + writer.ws(node.last_line)


def _simple_whitespace(writer: Writer, node: cst.SimpleWhitespace) -> str:
    return node.value


def _assign_target(writer: Writer, node: cst.AssignTarget) -> str:
    ws = writer.ws
    return writer.code(node.target) + ws(node.whitespace_before_equal) + "=" + ws(node.whitespace_after_equal)


def _annotation(writer: Writer, node: cst.Annotation) -> str:
    """An annotation with the `:` indicator (AnnAssign and parameters)."""
    before = node.whitespace_before_indicator
    text = writer.ws(before) if isinstance(before, cst.BaseParenthesizableWhitespace) else ""
    return text + ":" + writer.ws(node.whitespace_after_indicator) + writer.code(node.annotation)


# Small statements: the text without the semicolon (added by `Writer.small`).


def _assign(writer: Writer, node: cst.Assign) -> str:
    code = writer.code
    return "".join([code(target) for target in node.targets]) + code(node.value)


def _ann_assign(writer: Writer, node: cst.AnnAssign) -> str:
    text = writer.code(node.target) + _annotation(writer, node.annotation)
    equal = node.equal
    if equal is _DEFAULT and node.value is not None:
        text += " = "
    elif isinstance(equal, cst.AssignEqual):
        text += writer.code(equal)
    if node.value is not None:
        text += writer.code(node.value)
    return text


def _aug_assign(writer: Writer, node: cst.AugAssign) -> str:
    return writer.code(node.target) + writer.code(node.operator) + writer.code(node.value)


def _expr(writer: Writer, node: cst.Expr) -> str:
    return writer.code(node.value)


def _pass(writer: Writer, node: cst.Pass) -> str:
    return "pass"


def _small_alone(writer: Writer, node: cst.BaseSmallStatement) -> str:
    """A small statement as the last one of its line (no default semicolon)."""
    text = SMALL[type(node)](writer, node)
    semicolon = node.semicolon
    if isinstance(semicolon, cst.Semicolon):
        text += writer.code(semicolon)
    return text


# Statements.


def _simple_statement_line(writer: Writer, node: cst.SimpleStatementLine) -> str:
    return (
        writer.lines(node.leading_lines)
        + writer.indent
        + writer.small_statements(node.body)
        + writer.trailing(node.trailing_whitespace)
    )


def _for(writer: Writer, node: cst.For) -> str:
    ws = writer.ws
    text = writer.lines(node.leading_lines) + writer.indent
    if node.asynchronous is not None:
        text += "async" + ws(node.asynchronous.whitespace_after)
    text += (
        "for"
        + ws(node.whitespace_after_for)
        + writer.code(node.target)
        + ws(node.whitespace_before_in)
        + "in"
        + ws(node.whitespace_after_in)
        + writer.code(node.iter)
        + ws(node.whitespace_before_colon)
        + ":"
        + writer.suite(node.body)
    )
    if node.orelse is not None:
        text += writer.code(node.orelse)
    return text


def _if(writer: Writer, node: cst.If, keyword: str = "if") -> str:
    ws = writer.ws
    text = (
        writer.lines(node.leading_lines)
        + writer.indent
        + keyword
        + ws(node.whitespace_before_test)
        + writer.code(node.test)
        + ws(node.whitespace_after_test)
        + ":"
        + writer.suite(node.body)
    )
    orelse = node.orelse
    if isinstance(orelse, cst.If):
        text += _if(writer, orelse, "elif")
    elif orelse is not None:
        text += writer.code(orelse)
    return text


def _else(writer: Writer, node: cst.Else) -> str:
    return (
        writer.lines(node.leading_lines)
        + writer.indent
        + "else"
        + writer.ws(node.whitespace_before_colon)
        + ":"
        + writer.suite(node.body)
    )


def whole_clone(statements: Sequence[LoweredStatement], index: int, stage: Stage, run: int) -> bool:
    """Whether all statements of one clone follow at `index`, in order."""
    if len(statements) < index + run:
        return False
    for position in range(run):
        item = statements[index + position]
        if not isinstance(item, Clone) or item.stage is not stage or item.position != position:
            return False
    return True


def _clone(writer: Writer, node: Clone) -> str:
    template = node.template()
    if template is None:
        return writer.code(node.materialize())
    parts = template.parts(writer.code, writer.indent)
    if len(parts) == 1:
        return parts[0]
    fills = Fills(node.stage, writer.code)
    out = list(parts)
    for index in range(1, len(parts), 2):
        out[index] = fills[parts[index]]
    return "".join(out)


# Nodes written as their value (when they have no parentheses).
Atom = cst.Name | cst.Integer | cst.Float | cst.Imaginary | cst.SimpleString
ATOMS: frozenset[type] = frozenset(get_args(Atom))

_NodeT = TypeVar("_NodeT")
# The writer of one node type's text. A table maps each type to its writer, so a writer is only
# given nodes of its own type, which the type of the table cannot say: its writers take Any.
NodeWriter = Callable[["Writer", Any], str]


def _entry(kind: type[_NodeT], write: Callable[[Writer, _NodeT], str]) -> tuple[type, NodeWriter]:
    """A table entry whose writer takes nodes of type `kind` (checked here, not in the table)."""
    return kind, write


SMALL: dict[type, NodeWriter] = dict(
    [
        _entry(cst.Assign, _assign),
        _entry(cst.AnnAssign, _ann_assign),
        _entry(cst.AugAssign, _aug_assign),
        _entry(cst.Expr, _expr),
        _entry(cst.Pass, _pass),
    ]
)

HANDLERS: dict[type, NodeWriter] = dict(
    [
        _entry(cst.Name, _atom),
        _entry(cst.Integer, _atom),
        _entry(cst.Float, _atom),
        _entry(cst.Imaginary, _atom),
        _entry(cst.SimpleString, _atom),
        _entry(cst.Attribute, _attribute),
        _entry(cst.Call, _call),
        _entry(cst.BinaryOperation, _binary),
        _entry(cst.BooleanOperation, _binary),
        _entry(cst.UnaryOperation, _unary),
        _entry(cst.Comparison, _comparison),
        _entry(cst.Subscript, _subscript),
        _entry(cst.Index, _index),
        _entry(cst.List, _list),
        _entry(cst.Tuple, _tuple),
        _entry(cst.Dict, _dict),
        _entry(cst.SimpleWhitespace, _simple_whitespace),
        _entry(cst.ParenthesizedWhitespace, _parenthesized_whitespace),
        _entry(cst.AssignTarget, _assign_target),
        _entry(cst.SimpleStatementLine, _simple_statement_line),
        _entry(cst.For, _for),
        _entry(cst.If, _if),
        _entry(cst.Else, _else),
        _entry(Clone, _clone),
        *[_entry(kind, _small_alone) for kind in SMALL],
    ]
)
# The token of each one-token node (libcst keeps it behind a private method).
_TWO_SIDED = {
    "Comma": ",", "Dot": ".", "AssignEqual": "=", "Colon": ":", "Semicolon": ";", "Add": "+",
    "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//", "Modulo": "%",
    "Power": "**", "MatrixMultiply": "@", "LeftShift": "<<", "RightShift": ">>", "BitAnd": "&",
    "BitOr": "|", "BitXor": "^", "And": "and", "Or": "or", "Equal": "==", "NotEqual": "!=",
    "LessThan": "<", "LessThanEqual": "<=", "GreaterThan": ">", "GreaterThanEqual": ">=",
    "In": "in", "Is": "is", "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=",
    "DivideAssign": "/=", "FloorDivideAssign": "//=", "ModuloAssign": "%=", "PowerAssign": "**=",
    "MatrixMultiplyAssign": "@=", "LeftShiftAssign": "<<=", "RightShiftAssign": ">>=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=",
}  # fmt: skip
_PREFIX = {"Minus": "-", "Plus": "+", "BitInvert": "~", "Not": "not"}
TOKENS: dict[type, str] = {getattr(cst, name): token for name, token in {**_TWO_SIDED, **_PREFIX}.items()}
for _name in _TWO_SIDED:
    HANDLERS[getattr(cst, _name)] = _two_sided
for _name in _PREFIX:
    HANDLERS[getattr(cst, _name)] = _prefix_op
