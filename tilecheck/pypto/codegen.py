"""Code generation for the lowered loops: byte for byte what libcst writes, faster.

libcst's codegen costs a context manager and two hook calls per node, and a lowering makes
thousands of nodes. This writer produces the same text for the node types the lowering
produces and hands every other type to libcst itself (`_Writer.libcst`). Subtrees are shared
between clones (the parts of a loop body a clone does not change), so node texts are
memoized: for every writer when the text did not look at the indentation, else per
indentation (a `ParenthesizedWhitespace` with `indent=True` inside an expression does). A
clone's statements (`template.Stage`) are written at once from their templates.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState

from tilecheck.pypto.template import Clone, Fills, Stage

_DEFAULT = cst.MaybeSentinel.DEFAULT


class Codegen:
    """Writes statements of one module (its default indent and newline) at any indentation."""

    def __init__(self, module: cst.Module) -> None:
        self.state = _State(module.default_indent, module.default_newline)
        self._writers: dict[str, _Writer] = {}

    def writer(self, indent: str) -> _Writer:
        writer = self._writers.get(indent)
        if writer is None:
            writer = self._writers[indent] = _Writer(self, indent)
        return writer

    def statements(self, nodes: Sequence[cst.BaseStatement], indent: str) -> str:
        """The text of `nodes` as statements of a block indented by `indent`."""
        return self.writer(indent).block(nodes)


class _State:
    """What all writers of one module share."""

    def __init__(self, default_indent: str, default_newline: str) -> None:
        self.default_indent = default_indent
        self.default_newline = default_newline
        # Texts that did not depend on the indentation, for every writer; `indented` counts the
        # times a writer looked at its indentation, so a text that changed it is kept per writer.
        self.shared: dict[int, str] = {}
        self.indented = 0


class _Writer:
    def __init__(self, root: Codegen, indent: str) -> None:
        self.root = weakref.proxy(root)  # the root holds the writers: no reference cycle
        self.state = root.state
        self._indent = indent
        self.memo: dict[int, str] = {}

    # -- entry points ----------------------------------------------------------------------

    def code(self, node: cst.CSTNode) -> str:
        if type(node) in _ATOMS and not node.lpar:  # type: ignore[attr-defined]
            return node.value  # type: ignore[attr-defined]  # cheaper than a memo lookup
        key = id(node)
        state = self.state
        text = state.shared.get(key)
        if text is not None:
            return text
        text = self.memo.get(key)
        if text is not None:
            state.indented += 1  # a text kept per writer depends on the indentation
        else:
            before = state.indented
            handler = _HANDLERS.get(type(node))
            text = handler(self, node) if handler is not None else self.libcst(node)
            if state.indented == before:
                state.shared[key] = text
            else:
                self.memo[key] = text
        return text

    @property
    def indent(self) -> str:
        self.state.indented += 1
        return self._indent

    def block(self, statements: Sequence[cst.BaseStatement]) -> str:
        """Statements at this indentation; one clone's statements at once when they are together."""
        texts = []
        index = 0
        count = len(statements)
        while index < count:
            statement = statements[index]
            if type(statement) is Clone and statement.position == 0:  # type: ignore[attr-defined]
                stage = statement.stage  # type: ignore[attr-defined]
                run = len(stage.statements)
                if stage.templates is not None and _whole(statements, index, stage, run):
                    self.state.indented += 1
                    texts.append(stage.text(self.code, self._indent, Fills(stage, self.code)))
                    index += run
                    continue
            texts.append(self.code(statement))
            index += 1
        return "".join(texts)

    def libcst(self, node: cst.CSTNode, **kwargs: object) -> str:
        """libcst's own codegen of `node` at this indentation."""
        state = self.state
        state.indented += 1
        codegen_state = CodegenState(
            default_indent=state.default_indent,
            default_newline=state.default_newline,
            indent_tokens=[self._indent] if self._indent else [],
        )
        node._codegen(codegen_state, **kwargs)
        return "".join(codegen_state.tokens)

    def ws(self, node: cst.CSTNode) -> str:
        if type(node) is cst.SimpleWhitespace:
            return node.value  # type: ignore[attr-defined]
        return self.code(node)

    def parens(self, node: cst.BaseExpression, inner: str) -> str:
        if not node.lpar:
            return inner
        ws = self.ws
        left = "".join(["(" + ws(paren.whitespace_after) for paren in node.lpar])
        right = "".join([ws(paren.whitespace_before) + ")" for paren in node.rpar])
        return left + inner + right

    def lines(self, lines: Sequence[cst.EmptyLine]) -> str:
        return "".join([self.empty_line(line) for line in lines])

    def empty_line(self, line: cst.EmptyLine) -> str:
        text = self.indent if line.indent else ""
        text += self.ws(line.whitespace)
        if line.comment is not None:
            text += line.comment.value
        return text + self.newline(line.newline)

    def newline(self, node: cst.Newline) -> str:
        return self.state.default_newline if node.value is None else node.value

    def trailing(self, node: cst.TrailingWhitespace) -> str:
        text = self.ws(node.whitespace)
        if node.comment is not None:
            text += node.comment.value
        return text + self.newline(node.newline)

    def comma(self, comma: cst.Comma | cst.MaybeSentinel, default: bool, spaced: bool = True) -> str:
        if comma is _DEFAULT:
            if default:
                return ", " if spaced else ","
            return ""
        if isinstance(comma, cst.Comma):
            return self.code(comma)
        return ""

    def small(self, node: cst.BaseSmallStatement, default_semicolon: bool) -> str:
        handler = _SMALL.get(type(node))
        if handler is None:
            return self.libcst(node, default_semicolon=default_semicolon)
        if not default_semicolon:
            return self.code(node)
        semicolon = node.semicolon
        if isinstance(semicolon, cst.Semicolon):
            return handler(self, node) + self.code(semicolon)
        return handler(self, node) + "; "

    def small_statements(self, body: Sequence[cst.BaseSmallStatement]) -> str:
        if not body:
            return "pass"
        last = len(body) - 1
        return "".join([self.small(small, index != last) for index, small in enumerate(body)])

    def suite(self, node: cst.BaseSuite) -> str:
        if type(node) is cst.IndentedBlock:
            return self.indented_block(node)  # type: ignore[arg-type]
        return self.libcst(node)

    def indented_block(self, node: cst.IndentedBlock) -> str:
        header = self.trailing(node.header)
        step = self.state.default_indent if node.indent is None else node.indent
        inner = self.root.writer(self._indent + step)
        if node.body:
            body = inner.block(node.body)
        else:
            body = inner.indent + "pass" + self.state.default_newline
        return header + body + inner.lines(node.footer)

    def args(self, args: Sequence[cst.Arg]) -> str:
        last = len(args) - 1
        return "".join([self.arg(arg, index != last) for index, arg in enumerate(args)])

    def arg(self, node: cst.Arg, default_comma: bool) -> str:
        ws = self.ws
        text = node.star + ws(node.whitespace_after_star)
        if node.keyword is not None:
            text += self.code(node.keyword)
        equal = node.equal
        if equal is _DEFAULT and node.keyword is not None:
            text += " = "
        elif isinstance(equal, cst.AssignEqual):
            text += self.code(equal)
        text += self.code(node.value)
        text += self.comma(node.comma, default_comma)
        return text + ws(node.whitespace_after_arg)

    def elements(self, elements: Sequence[cst.CSTNode], single_tuple: bool = False) -> str:
        if single_tuple and len(elements) == 1:
            return self.element(elements[0], True, False)
        last = len(elements) - 1
        return "".join([self.element(element, index < last, True) for index, element in enumerate(elements)])

    def element(self, node: cst.CSTNode, default_comma: bool, spaced: bool) -> str:
        kind = type(node)
        if kind is cst.Element:
            return self.code(node.value) + self.comma(node.comma, default_comma, spaced)  # type: ignore[attr-defined]
        if kind is cst.DictElement:
            text = (
                self.code(node.key)  # type: ignore[attr-defined]
                + self.ws(node.whitespace_before_colon)  # type: ignore[attr-defined]
                + ":"
                + self.ws(node.whitespace_after_colon)  # type: ignore[attr-defined]
                + self.code(node.value)  # type: ignore[attr-defined]
            )
            return text + self.comma(node.comma, default_comma, spaced)  # type: ignore[attr-defined]
        return self.libcst(node, default_comma=default_comma, default_comma_whitespace=spaced)


# -- handlers: each returns exactly the text libcst's `_codegen_impl` writes --------------------


def _atom(writer: _Writer, node: cst.Name) -> str:
    return writer.parens(node, node.value)


def _attribute(writer: _Writer, node: cst.Attribute) -> str:
    return writer.parens(node, writer.code(node.value) + writer.code(node.dot) + writer.code(node.attr))


def _call(writer: _Writer, node: cst.Call) -> str:
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


def _binary(writer: _Writer, node: cst.BinaryOperation) -> str:
    code = writer.code
    return writer.parens(node, code(node.left) + code(node.operator) + code(node.right))


def _unary(writer: _Writer, node: cst.UnaryOperation) -> str:
    return writer.parens(node, writer.code(node.operator) + writer.code(node.expression))


def _comparison(writer: _Writer, node: cst.Comparison) -> str:
    code = writer.code
    parts = [code(node.left)]
    for target in node.comparisons:
        parts.append(code(target.operator))
        parts.append(code(target.comparator))
    return writer.parens(node, "".join(parts))


def _subscript(writer: _Writer, node: cst.Subscript) -> str:
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


def _index(writer: _Writer, node: cst.Index) -> str:
    text = node.star or ""
    if node.whitespace_after_star is not None:
        text += writer.ws(node.whitespace_after_star)
    return text + writer.code(node.value)


def _list(writer: _Writer, node: cst.List) -> str:
    inner = (
        "["
        + writer.ws(node.lbracket.whitespace_after)
        + writer.elements(node.elements)
        + writer.ws(node.rbracket.whitespace_before)
        + "]"
    )
    return writer.parens(node, inner)


def _tuple(writer: _Writer, node: cst.Tuple) -> str:
    return writer.parens(node, writer.elements(node.elements, single_tuple=True))


def _dict(writer: _Writer, node: cst.Dict) -> str:
    inner = (
        "{"
        + writer.ws(node.lbrace.whitespace_after)
        + writer.elements(node.elements)
        + writer.ws(node.rbrace.whitespace_before)
        + "}"
    )
    return writer.parens(node, inner)


def _two_sided(writer: _Writer, node: cst.Comma) -> str:
    """Comma, Dot, AssignEqual, Colon, Semicolon and the one-token binary/comparison ops."""
    return writer.ws(node.whitespace_before) + node._get_token() + writer.ws(node.whitespace_after)


def _prefix_op(writer: _Writer, node: cst.Minus) -> str:
    return node._get_token() + writer.ws(node.whitespace_after)


def _parenthesized_whitespace(writer: _Writer, node: cst.ParenthesizedWhitespace) -> str:
    text = writer.trailing(node.first_line) + writer.lines(node.empty_lines)
    if node.indent:
        text += writer.indent
    return text + writer.ws(node.last_line)


def _simple_whitespace(writer: _Writer, node: cst.SimpleWhitespace) -> str:
    return node.value


def _assign_target(writer: _Writer, node: cst.AssignTarget) -> str:
    ws = writer.ws
    return writer.code(node.target) + ws(node.whitespace_before_equal) + "=" + ws(node.whitespace_after_equal)


def _annotation(writer: _Writer, node: cst.Annotation) -> str:
    """An annotation with the `:` indicator (AnnAssign and parameters)."""
    before = node.whitespace_before_indicator
    text = writer.ws(before) if isinstance(before, cst.BaseParenthesizableWhitespace) else ""
    return text + ":" + writer.ws(node.whitespace_after_indicator) + writer.code(node.annotation)


# Small statements: the text without the semicolon (added by `_Writer.small`).


def _assign(writer: _Writer, node: cst.Assign) -> str:
    code = writer.code
    return "".join([code(target) for target in node.targets]) + code(node.value)


def _ann_assign(writer: _Writer, node: cst.AnnAssign) -> str:
    text = writer.code(node.target) + _annotation(writer, node.annotation)
    equal = node.equal
    if equal is _DEFAULT and node.value is not None:
        text += " = "
    elif isinstance(equal, cst.AssignEqual):
        text += writer.code(equal)
    if node.value is not None:
        text += writer.code(node.value)
    return text


def _aug_assign(writer: _Writer, node: cst.AugAssign) -> str:
    return writer.code(node.target) + writer.code(node.operator) + writer.code(node.value)


def _expr(writer: _Writer, node: cst.Expr) -> str:
    return writer.code(node.value)


def _pass(writer: _Writer, node: cst.Pass) -> str:
    return "pass"


def _small_alone(writer: _Writer, node: cst.BaseSmallStatement) -> str:
    """A small statement as the last one of its line (no default semicolon)."""
    text = _SMALL[type(node)](writer, node)
    semicolon = node.semicolon
    if isinstance(semicolon, cst.Semicolon):
        text += writer.code(semicolon)
    return text


# Statements.


def _simple_statement_line(writer: _Writer, node: cst.SimpleStatementLine) -> str:
    return (
        writer.lines(node.leading_lines)
        + writer.indent
        + writer.small_statements(node.body)
        + writer.trailing(node.trailing_whitespace)
    )


def _for(writer: _Writer, node: cst.For) -> str:
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


def _if(writer: _Writer, node: cst.If, keyword: str = "if") -> str:
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


def _else(writer: _Writer, node: cst.Else) -> str:
    return (
        writer.lines(node.leading_lines)
        + writer.indent
        + "else"
        + writer.ws(node.whitespace_before_colon)
        + ":"
        + writer.suite(node.body)
    )


def _whole(statements: Sequence[cst.BaseStatement], index: int, stage: Stage, run: int) -> bool:
    """Whether all statements of one clone follow at `index`, in order."""
    if len(statements) < index + run:
        return False
    for position in range(run):
        item = statements[index + position]
        if type(item) is not Clone or item.stage is not stage or item.position != position:  # type: ignore[attr-defined]
            return False
    return True


def _clone(writer: _Writer, node: Clone) -> str:
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


_ATOMS = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString})

_SMALL: dict[type, Callable[[_Writer, cst.CSTNode], str]] = {
    cst.Assign: _assign,  # type: ignore[dict-item]
    cst.AnnAssign: _ann_assign,  # type: ignore[dict-item]
    cst.AugAssign: _aug_assign,  # type: ignore[dict-item]
    cst.Expr: _expr,  # type: ignore[dict-item]
    cst.Pass: _pass,  # type: ignore[dict-item]
}

_HANDLERS: dict[type, Callable[[_Writer, cst.CSTNode], str]] = {
    cst.Name: _atom,  # type: ignore[dict-item]
    cst.Integer: _atom,  # type: ignore[dict-item]
    cst.Float: _atom,  # type: ignore[dict-item]
    cst.Imaginary: _atom,  # type: ignore[dict-item]
    cst.SimpleString: _atom,  # type: ignore[dict-item]
    cst.Attribute: _attribute,  # type: ignore[dict-item]
    cst.Call: _call,  # type: ignore[dict-item]
    cst.BinaryOperation: _binary,  # type: ignore[dict-item]
    cst.BooleanOperation: _binary,  # type: ignore[dict-item]
    cst.UnaryOperation: _unary,  # type: ignore[dict-item]
    cst.Comparison: _comparison,  # type: ignore[dict-item]
    cst.Subscript: _subscript,  # type: ignore[dict-item]
    cst.Index: _index,  # type: ignore[dict-item]
    cst.List: _list,  # type: ignore[dict-item]
    cst.Tuple: _tuple,  # type: ignore[dict-item]
    cst.Dict: _dict,  # type: ignore[dict-item]
    cst.SimpleWhitespace: _simple_whitespace,  # type: ignore[dict-item]
    cst.ParenthesizedWhitespace: _parenthesized_whitespace,  # type: ignore[dict-item]
    cst.AssignTarget: _assign_target,  # type: ignore[dict-item]
    cst.SimpleStatementLine: _simple_statement_line,  # type: ignore[dict-item]
    cst.For: _for,  # type: ignore[dict-item]
    cst.If: _if,  # type: ignore[dict-item]
    cst.Else: _else,  # type: ignore[dict-item]
    Clone: _clone,  # type: ignore[dict-item]
    **{kind: _small_alone for kind in _SMALL},
}
_TWO_SIDED = [
    "Comma", "Dot", "AssignEqual", "Colon", "Semicolon", "Add", "Subtract", "Multiply", "Divide",
    "FloorDivide", "Modulo", "Power", "MatrixMultiply", "LeftShift", "RightShift", "BitAnd",
    "BitOr", "BitXor", "And", "Or", "Equal", "NotEqual", "LessThan", "LessThanEqual",
    "GreaterThan", "GreaterThanEqual", "In", "Is", "AddAssign", "SubtractAssign",
    "MultiplyAssign", "DivideAssign", "FloorDivideAssign", "ModuloAssign", "PowerAssign",
    "MatrixMultiplyAssign", "LeftShiftAssign", "RightShiftAssign", "BitAndAssign",
    "BitOrAssign", "BitXorAssign",
]  # fmt: skip
for _name in _TWO_SIDED:
    _HANDLERS[getattr(cst, _name)] = _two_sided  # type: ignore[assignment]
for _name in ("Minus", "Plus", "BitInvert", "Not"):
    _HANDLERS[getattr(cst, _name)] = _prefix_op  # type: ignore[assignment]
