"""Code generation for the lowered loops: byte for byte what libcst writes, faster.

libcst's codegen costs a context manager and two hook calls per node, and a lowering makes
thousands of nodes. This writer produces the same text for the node types the lowering
produces and hands every other type to libcst itself (`Writer.libcst`). Subtrees are shared
between clones (the parts of a loop body a clone does not change), so node texts are
memoized: for every writer when the text did not look at the indentation, else per
indentation (a `ParenthesizedWhitespace` with `indent=True` inside an expression does). A
clone's statements (`stage.Stage`) are written at once from their templates. The writer
for each node type is in `codegen_nodes`.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import cast

import libcst as cst
from libcst._nodes.internal import CodegenState

from tilecheck.pypto.codegen_nodes import ATOMS, HANDLERS, SMALL, Atom, whole_clone
from tilecheck.pypto.stage import Clone, Fills, LoweredStatement

_DEFAULT = cst.MaybeSentinel.DEFAULT


class Codegen:
    """Writes statements of one module (its default indent and newline) at any indentation."""

    def __init__(self, module: cst.Module) -> None:
        self.state = _State(module.default_indent, module.default_newline)
        self._writers: dict[str, Writer] = {}

    def writer(self, indent: str) -> Writer:
        writer = self._writers.get(indent)
        if writer is None:
            writer = self._writers[indent] = Writer(self, indent)
        return writer

    def statements(self, nodes: Sequence[LoweredStatement], indent: str) -> str:
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


class Writer:
    def __init__(self, root: Codegen, indent: str) -> None:
        # A proxy, which behaves as the root does: the root holds the writers, so no reference cycle.
        self.root: Codegen = weakref.proxy(root)
        self.state = root.state
        self._indent = indent
        self.memo: dict[int, str] = {}

    # -- entry points ----------------------------------------------------------------------

    def code(self, node: cst.CSTNode | Clone) -> str:
        if type(node) in ATOMS:
            atom = cast(Atom, node)  # ATOMS are the types of `Atom`
            if not atom.lpar:
                return atom.value  # cheaper than a memo lookup
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
            handler = HANDLERS.get(type(node))
            if handler is not None:
                text = handler(self, node)
            else:
                assert not isinstance(node, Clone)  # `HANDLERS` has the writer of clones
                text = self.libcst(node)
            if state.indented == before:
                state.shared[key] = text
            else:
                self.memo[key] = text
        return text

    @property
    def indent(self) -> str:
        self.state.indented += 1
        return self._indent

    def block(self, statements: Sequence[LoweredStatement]) -> str:
        """Statements at this indentation; one clone's statements at once when they are together."""
        texts = []
        index = 0
        count = len(statements)
        while index < count:
            statement = statements[index]
            if isinstance(statement, Clone) and statement.position == 0:
                stage = statement.stage
                run = len(stage.statements)
                if stage.templates is not None and whole_clone(statements, index, stage, run):
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
            return node.value
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
        handler = SMALL.get(type(node))
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
            return self.indented_block(node)
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

    def elements(
        self, elements: Sequence[cst.BaseElement | cst.BaseDictElement], single_tuple: bool = False
    ) -> str:
        if single_tuple and len(elements) == 1:
            return self.element(elements[0], True, False)
        last = len(elements) - 1
        return "".join([self.element(element, index < last, True) for index, element in enumerate(elements)])

    def element(self, node: cst.BaseElement | cst.BaseDictElement, default_comma: bool, spaced: bool) -> str:
        if type(node) is cst.Element:
            return self.code(node.value) + self.comma(node.comma, default_comma, spaced)
        if type(node) is cst.DictElement:
            text = (
                self.code(node.key)
                + self.ws(node.whitespace_before_colon)
                + ":"
                + self.ws(node.whitespace_after_colon)
                + self.code(node.value)
            )
            return text + self.comma(node.comma, default_comma, spaced)
        return self.libcst(node, default_comma=default_comma, default_comma_whitespace=spaced)
