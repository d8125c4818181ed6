"""Module and factory code read as Python: what exists before TileLang builds a kernel."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from tilecheck.tilelang.classes import (
    class_attributes,
    constructed_with_arguments,
    contains_call,
    decorator_name,
    init_defaults,
)
from tilecheck.tilelang.factories import factory_env, is_eager_kernel
from tilecheck.tilelang.imports import ImportTable, ProjectFunction, ProjectModule, bindings, try_imports
from tilecheck.tilelang.model import MAX_BUILDS, FileModel, Site
from tilecheck.tilelang.reuse import KernelMemo, KeyBuilder, Snapshot, replay
from tilecheck.tilelang.scope import (
    MAX_WORK,
    BuildState,
    DefinedFunction,
    Env,
    Frame,
    Sink,
    bind_python,
    constexpr_name,
    constexpr_of,
)
from tilecheck.tilelang.statements import KernelInterpreter
from tilecheck.tilelang.syntax import (
    assigned_names,
    called_names,
    defines_kernel,
    first_target_name,
    if_bodies,
    nested_statements,
    parameters,
    suite_body,
)
from tilecheck.tilelang.values import (
    UNKNOWN,
    BufferValue,
    InstanceValue,
    ModuleRef,
    PyCallable,
    PyConst,
    PyValue,
    Value,
)

# `gemm.compile(a, b, c, block_M=64)`, `gemm.get_tir(...)`: an eager-JIT kernel built as a call builds it.
JIT_METHODS = ("compile", "get_tir")
CALL_DEPTH = 3  # how many plain functions deep argument values are followed (test -> run -> factory)


class PythonLevel:
    """Reads module and factory code as plain Python: constants, imports, macros, factories
    and the calls that instantiate them. Kernels found on the way are built by the kernel
    interpreter, with which it shares the build state."""

    def __init__(self, module: cst.Module, imports: ImportTable, memo: KernelMemo | None = None) -> None:
        self.module = module
        self.memo = memo  # kernels built for this document's earlier versions (the editor's)
        self.source: str | None = None  # the module's text, generated once if a class needs it
        self.imports = imports
        self.state = BuildState()
        self.interpreter = KernelInterpreter(self.state, imports)
        self.evaluator = self.interpreter.evaluator
        self.evaluator.project_function = self.project_function
        self.factories: list[DefinedFunction] = []  # functions that define a kernel
        self.functions: list[DefinedFunction] = []  # module-level plain functions
        self.project_functions: dict[tuple[int, str], DefinedFunction | None] = {}
        self.project_envs: dict[int, Env] = {}
        self.kernel_methods: dict[str, list[DefinedFunction]] = {}  # kernel factories in classes
        self.eager_kernels: list[DefinedFunction] = []  # module-level eager-JIT kernels the file calls
        self._called: set[str] | None = None  # the names the module calls, found when first needed

    def run(self) -> FileModel:
        """Read the module as Python, then build each kernel factory once per distinct call.

        A factory (a function that defines a `@T.prim_func`) is built with the argument
        values of the calls the file makes (`kernel = matmul(1024, 1024, 64)`), because
        TileLang sees those values; without such a call its parameters are unknown.
        """
        module_env = Env()
        for name, imported in self.imports.functions.items():
            made = self.project_function(imported)
            if made is not None:
                module_env.bind(name, PyCallable(made))
        self.python_block(self.module.body, module_env, top=None)
        # Function bodies see the module as it is when they run: read them after the module.
        for function in self.functions:
            self.python_block(
                suite_body(function.node.body),
                factory_env(self.evaluator, function.node, function.env, None),
                function.top,
            )
        self.follow_arguments()
        for factory in self.factories:
            envs, self.state.calls_not_built = self.instantiations(factory)
            for env in envs:
                names = tuple((p.name.value, env.names.get(p.name.value)) for p in parameters(factory.node))
                self.state.factory_call = (factory.node.name.value, names)
                try:
                    self.python_block(suite_body(factory.node.body), env, factory.top)
                finally:
                    self.state.factory_call = None
            self.state.calls_not_built = 0
        for eager in self.eager_kernels:
            self.eager_builds(eager)
        return self.state.model

    def close(self) -> None:
        """Drop the references back to this reader and its interpreter that their parts hold:
        cycles that keep the file's model and trees alive until the cyclic collector runs (a
        cold run of the shared corpus spent a sixth of its time collecting)."""
        self.evaluator.project_function = None
        self.interpreter.close()

    def eager_builds(self, eager: DefinedFunction) -> None:
        """An eager-JIT kernel the file calls (`gemm(a, b, c, block_M=64)`), built once per
        distinct call: TileLang builds it when called, its Python parameters holding the
        call's arguments or their defaults (tensor parameters take their shapes from the
        tensors, which stay unknown)."""
        params = parameters(eager.node)
        envs, self.state.calls_not_built = self.instantiations(eager, constexprs=True)
        for env in envs:
            given = {p.name.value: env.names.get(p.name.value) for p in params}
            known: dict[str, Value] = {
                name: value
                for name, value in given.items()
                if isinstance(value, PyConst) or (isinstance(value, PyValue) and value.dtype is not None)
            }  # literals, and dtypes (`in_dtype=T.float16`)
            consts = {name: value for name, value in env.names.items() if name not in given}
            known |= consts
            label = (*given.items(), *((constexpr_of(name) or name, value) for name, value in consts.items()))
            self.state.factory_call = (eager.node.name.value, label) if known else None
            try:
                self.build_kernel(eager.node, eager.top, env, arguments=known)
            finally:
                self.state.factory_call = None
        self.state.calls_not_built = 0

    def called(self, name: str) -> bool:
        if self._called is None:
            self._called = called_names(self.module, JIT_METHODS)
        return name in self._called

    def build_kernel(
        self, node: cst.FunctionDef, top: cst.CSTNode, env: Env, arguments: dict[str, Value] | None = None
    ) -> None:
        """Interpret a kernel definition, or take the same build from `memo` (`tilelang.reuse`);
        `arguments`: an eager kernel's Python parameters, from the call that builds it."""
        memo = self.memo
        if memo is None:
            self.interpreter.kernel(node, top, env, arguments)
            return
        keys = KeyBuilder(memo)
        constants = tuple(sorted((name, _value_key(value)) for name, value in (arguments or {}).items()))
        key = (keys.key(node, top, env, self.imports), self.state.calls_not_built, constants)
        model = self.state.model
        kept = memo.get(key)
        if kept is not None and self.state.work + kept.work <= MAX_WORK:
            replay(kept, model)
            self.state.work += kept.work
            memo.reused += 1
            return
        known = [*keys.callables, *self.functions, *self.factories]
        known += [made for made in self.project_functions.values() if made is not None]
        before = Snapshot.of(model, self.state.work, known)
        self.interpreter.kernel(node, top, env, arguments)
        memo.built += 1
        built = before.added(model, self.state.work, keys.keep_alive)
        if built is not None:
            memo.put(key, built)

    def project_function(self, function: ProjectFunction) -> DefinedFunction | None:
        """A macro, loader or macro factory imported from a project module, in an environment
        of that module's own names; None when the module does not parse with libcst."""
        key = (id(function.module), function.name)
        if key in self.project_functions:
            return self.project_functions[key]
        self.project_functions[key] = None  # a cycle of modules binding each other's names
        found = function.module.function(function.name)
        if found is None:
            return None
        node, top = found
        env = self.project_env(function.module)
        is_macro = "macro" in self.evaluator.decorator_apis(node, env)
        made = DefinedFunction(node, top, env, is_macro, function.module.path, function.module.imports)
        self.project_functions[key] = made
        return made

    def project_env(self, project: ProjectModule) -> Env:
        """The module-level names of a project module that its functions read: its TileLang
        imports, the functions tilecheck follows, its literal constants; every name of the
        checked file's imports it does not bind is shadowed (it is not that module's `T`)."""
        env = self.project_envs.get(id(project))
        if env is not None:
            return env
        env = self.project_envs[id(project)] = Env()
        module = project.module
        if module is None:
            return env
        self.state.model.modules[project.path] = project
        for name in (*self.imports.aliases, *self.imports.modules, *self.imports.functions):
            env.bind(name, UNKNOWN)
        for name, qualified in project.imports.aliases.items():
            env.bind(name, ModuleRef(qualified))
        functions = [*project.imports.functions.items()]
        functions += [(name, ProjectFunction(project, name)) for name in sorted(project.followed)]
        for name, imported in functions:
            made = self.project_function(imported)
            if made is not None:
                env.bind(name, PyCallable(made))
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and not contains_call(small.value):
                        value = self.evaluator.value(small.value, Frame(env, statement), Sink([]))
                        for target in small.targets:
                            bind_python(target.target, value, env)
        return env

    def follow_arguments(self) -> None:
        """Re-read plain functions called with known values (`run_gemm(512, 1024, 768)`), so
        that the factory calls inside them carry those values too."""
        done: dict[int, set[tuple[object, ...]]] = {}
        for _ in range(CALL_DEPTH):
            progressed = False
            for function in self.functions:
                seen = done.setdefault(id(function), set())
                for arguments in list(function.call_sites)[: MAX_BUILDS * 2]:
                    if not any(isinstance(value, PyConst) for _, value in arguments):
                        continue
                    env = factory_env(self.evaluator, function.node, function.env, arguments)
                    key = tuple(_value_key(env.names.get(p.name.value)) for p in parameters(function.node))
                    if key in seen or len(seen) >= MAX_BUILDS:
                        continue
                    seen.add(key)
                    progressed = True
                    self.python_block(suite_body(function.node.body), env, function.top)
            if not progressed:
                return

    def instantiations(self, factory: DefinedFunction, constexprs: bool = False) -> tuple[list[Env], int]:
        """One environment per distinct call (at most `MAX_BUILDS`), else one with the
        parameters unknown; and how many distinct calls that one build stands for (0: none).
        With `constexprs` (an eager kernel), a call's literal keywords that name no parameter
        are the values of its `T.const` names (`gemm.compile(M=1024, ...)`)."""
        seen: dict[tuple[object, ...], Env] = {}
        names = {p.name.value for p in parameters(factory.node)}
        for arguments in factory.call_sites:
            if not constexprs and not _binds(factory.node, arguments, factory.receiver is not None):
                continue  # a TypeError in Python: this call builds nothing
            env = factory_env(self.evaluator, factory.node, factory.env, arguments, factory.receiver)
            if constexprs:
                for keyword, value in arguments:
                    if keyword is not None and keyword not in names and isinstance(value, PyConst):
                        env.bind(constexpr_name(keyword), value)
            key = tuple(_value_key(env.names.get(p.name.value)) for p in parameters(factory.node))
            key += tuple(sorted((n, _value_key(v)) for n, v in env.names.items() if n not in names))
            seen.setdefault(key, env)
        if not seen or len(seen) > MAX_BUILDS:
            unknown = factory_env(self.evaluator, factory.node, factory.env, None, factory.receiver)
            return [unknown], len(seen) if len(seen) > MAX_BUILDS else 0
        return list(seen.values()), 0

    def method_call(self, call: cst.Call, frame: Frame) -> None:
        """`Builder().make_kernel(64)`: a call site of a module-level class's kernel factory
        (any receiver: methods of that name in the file's classes all take it)."""
        if not isinstance(call.func, cst.Attribute) or any(arg.star for arg in call.args):
            return
        receiver = call.func.value
        if call.func.attr.value in JIT_METHODS and isinstance(receiver, cst.Name):
            found = frame.env.lookup(receiver.value)
            if isinstance(found, PyCallable) and any(found.function is eager for eager in self.eager_kernels):
                values = self.evaluator.arguments(call, frame, Sink([]))
                keywords = [arg.keyword.value if arg.keyword else None for arg in call.args]
                found.function.call_sites.append(list(zip(keywords, values, strict=True)))
                return
        factories = self.kernel_methods.get(call.func.attr.value)
        if not factories:
            return
        values = self.evaluator.arguments(call, frame, Sink([]))
        keywords = [arg.keyword.value if arg.keyword else None for arg in call.args]
        for factory in factories:
            factory.call_sites.append(list(zip(keywords, values, strict=True)))

    def python_block(self, body: Sequence[cst.BaseStatement], env: Env, top: cst.CSTNode | None) -> None:
        """Walk module or factory code as plain Python: constants, macros, kernels."""
        for statement in body:
            anchor = statement if top is None else top
            if isinstance(statement, cst.FunctionDef):
                apis = self.evaluator.decorator_apis(statement, env)
                if "prim_func" in apis:
                    self.build_kernel(statement, anchor, env)
                    env.bind(statement.name.value, PyValue())
                    continue
                if is_eager_kernel(statement, env, self.imports, self.evaluator):
                    if top is None and self.called(statement.name.value):
                        # Built per call, after the module (the calls give its parameters).
                        eager = DefinedFunction(statement, anchor, env, is_macro=False)
                        env.bind(statement.name.value, PyCallable(eager))
                        self.eager_kernels.append(eager)
                        continue
                    self.build_kernel(statement, anchor, env)
                    env.bind(statement.name.value, PyValue())
                    continue
                callee = DefinedFunction(statement, anchor, env, is_macro="macro" in apis)
                env.bind(statement.name.value, PyCallable(callee))
                if callee.is_macro:
                    continue
                if top is None and defines_kernel(statement):
                    self.factories.append(callee)  # built once per call site, after the module
                elif top is None:
                    self.functions.append(callee)  # read after the module, then per known call
                else:  # a nested factory, or plain code that may call factories
                    self.python_block(
                        suite_body(statement.body), factory_env(self.evaluator, statement, env, None), anchor
                    )
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    self.python_assign(small, env, anchor)
            elif isinstance(statement, cst.If):
                self.python_if(statement, env, anchor)
            elif isinstance(statement, cst.ClassDef):
                # Kernels built in methods (instance, static or class methods): each method is
                # read like a nested factory, its parameters (`self` too) unknown. Methods do
                # not see the class body's names, so only the methods are read.
                self.class_methods(statement, env, anchor)
            elif isinstance(statement, cst.For) and self.python_for(statement, env, anchor):
                continue
            elif isinstance(statement, (cst.For, cst.While, cst.With, cst.Try)):
                # `try: import tilelang.language as T` / `except ImportError: T = None`: the
                # kernels are written for the import that succeeds.
                imported = set(try_imports(statement)) if isinstance(statement, cst.Try) else set()
                self.forget_assigned(statement, env, keep=imported)
                inner = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
                self.python_block(inner, env, anchor)

    def python_for(self, statement: cst.For, env: Env, top: cst.CSTNode) -> bool:
        """A driver loop over literal values (`for bm in (64, 128): run(bm)`), read once per
        value so that the calls it makes carry each; False (read once, its names unknown) for
        any other loop, and for one that defines functions or classes or leaves early."""
        if statement.orelse is not None or statement.asynchronous is not None:
            return False
        nested = list(nested_statements(suite_body(statement.body)))
        if any(isinstance(n, (cst.FunctionDef, cst.ClassDef)) for n in nested):
            return False
        if any(
            isinstance(small, (cst.Break, cst.Continue, cst.Return))
            for n in nested
            if isinstance(n, cst.SimpleStatementLine)
            for small in n.body
        ):
            return False
        values = self.evaluator.value(statement.iter, Frame(env, top), Sink([]))
        if not isinstance(values, PyConst) or not isinstance(values.value, (tuple, list)):
            return False
        items = list(values.value)
        if not items or len(items) > MAX_BUILDS or not all(isinstance(item, PyConst) for item in items):
            return False
        self.forget_assigned(statement, env)
        for item in items:
            bind_python(statement.target, item, env)
            self.python_block(suite_body(statement.body), env, top)
        self.forget_assigned(statement, env)  # after the loop: whatever the last pass left
        return True

    def class_methods(self, statement: cst.ClassDef, env: Env, anchor: cst.CSTNode) -> None:
        """Each method read like a nested factory; `self.X` / `cls.X` is the literal of a class
        attribute `X = 64` or of the `__init__` default behind `self.X = x` (unless the file
        constructs the class with arguments), else unknown as any unresolved value."""
        methods = [s for s in suite_body(statement.body) if isinstance(s, cst.FunctionDef)]
        attributes = class_attributes(statement, lambda node: self.literal(node, env))
        instance = dict(attributes)
        for method in methods:
            if method.name.value == "__init__":
                defaults = init_defaults(method, lambda node: self.literal(node, env))
                if defaults and not self.constructed_with_arguments(statement.name.value):
                    instance.update(defaults)
        class_env = Env(env)
        for method in methods:
            apis = self.evaluator.decorator_apis(method, class_env)
            names = {decorator_name(d.decorator) for d in method.decorators}
            params = parameters(method)
            if (
                "prim_func" in apis
                or "staticmethod" in names
                or not params
                or is_eager_kernel(method, env, self.imports, self.evaluator)
            ):
                self.python_block([method], class_env, anchor)
                continue
            receiver = InstanceValue(attributes if "classmethod" in names else instance)
            if anchor is statement and defines_kernel(method):
                # A module-level class's kernel factory: built once per call the file makes
                # (`Builder().make_kernel(64)`, `builder.make_kernel(n=64)`), after the module.
                factory = DefinedFunction(method, anchor, class_env, is_macro=False)
                factory.receiver = receiver
                self.factories.append(factory)
                self.kernel_methods.setdefault(method.name.value, []).append(factory)
                continue
            inner = factory_env(self.evaluator, method, class_env, None)
            inner.bind(params[0].name.value, receiver)
            self.python_block(suite_body(method.body), inner, anchor)

    def constructed_with_arguments(self, name: str) -> bool:
        if self.source is None:
            self.source = self.module.code
        return constructed_with_arguments(self.source, name)

    def literal(self, node: cst.BaseExpression, env: Env) -> PyConst | None:
        if contains_call(node):
            return None
        value = self.evaluator.value(node, Frame(env, node), Sink([]))
        return value if isinstance(value, PyConst) else None

    def python_if(self, statement: cst.If, env: Env, top: cst.CSTNode) -> None:
        test = self.evaluator.value(statement.test, Frame(env, top), Sink([]))
        if not isinstance(test, PyConst):
            decided = self.evaluator.truth(statement.test, Frame(env, top))
            test = test if decided is None else PyConst(decided)
        if isinstance(test, PyConst):
            branch = statement.body if test.value else statement.orelse
            if isinstance(branch, cst.Else):
                branch = branch.body
            if isinstance(branch, cst.If):
                self.python_if(branch, env, top)
            elif branch is not None:
                self.python_block(suite_body(branch), env, top)
            return
        self.forget_assigned(statement, env)
        built = len(self.state.model.kernels)
        for branch_body in if_bodies(statement):
            self.python_block(branch_body, Env(env), top)
        for kernel in self.state.model.kernels[built:]:  # defined under this undecided condition
            kernel.conditions = (Site(statement, top), *kernel.conditions)

    def forget_assigned(self, statement: cst.CSTNode, env: Env, keep: set[str] | None = None) -> None:
        """Names assigned under an undecidable Python condition hold unknown values."""
        for node in assigned_names(statement):
            if keep is None or node not in keep:
                env.bind(node, PyValue())

    def python_assign(self, small: cst.BaseSmallStatement, env: Env, top: cst.CSTNode) -> None:
        frame = Frame(env, top)
        if isinstance(small, (cst.Import, cst.ImportFrom)) and env.parent is not None:
            for name, qualified in bindings(small).items():
                env.bind(name, ModuleRef(qualified))  # `import tilelang.language as T` in a factory
        elif isinstance(small, (cst.Expr, cst.Return)) and isinstance(small.value, cst.Call):
            self.method_call(small.value, frame)
            self.evaluator.value(small.value, frame, Sink([]))  # may be a factory call
        elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            if isinstance(small.value, cst.Call):
                self.method_call(small.value, frame)
            value = self.evaluator.value(small.value, frame, Sink([]))
            if isinstance(value, BufferValue) and not value.buffer.name:
                value.buffer.name = first_target_name(small) or "buffer"
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for target in targets:
                bind_python(target, value, env)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            env.bind(small.target.value, PyValue())


def _binds(function: cst.FunctionDef, arguments: list[tuple[str | None, Value]], method: bool) -> bool:
    """Whether Python would bind the call's arguments to the function's parameters: no more
    positional arguments than it takes, no keyword it does not name (unless `*args`/`**kwargs`)."""
    params = function.params
    positional = [*params.posonly_params, *params.params][1 if method else 0 :]
    given = [keyword for keyword, _ in arguments]
    if not isinstance(params.star_arg, cst.Param) and given.count(None) > len(positional):
        return False
    if params.star_kwarg is not None:
        return True
    named = {p.name.value for p in [*params.params, *params.kwonly_params]}
    return all(keyword is None or keyword in named for keyword in given)


def _value_key(value: Value | None) -> object:
    if isinstance(value, PyConst):
        try:
            hash(value.value)
        except TypeError:
            return ("py", repr(value.value))
        return ("py", type(value.value).__name__, value.value)
    return ("unknown", type(value).__name__)
