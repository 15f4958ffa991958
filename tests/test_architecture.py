"""The import layering README's "Architecture" section describes, enforced: no module imports a higher layer,
no modules import each other in a cycle, and only the write path writes papers to a store.

Imports are read from the source (every `import`, at module level or inside a function; those under
`if TYPE_CHECKING:` are for type checkers only and left out).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bottom to top: a module may import its own layer and the layers below it, never one above.
LAYERS: list[tuple[str, set[str]]] = [
    ("records", {"kg.types", "kg.names", "kg.settings", "kg.registry"}),
    ("read", {"kg.io"}),
    ("ontology", {"kg.rdf", "kg.vocab"}),
    ("extract", {"kg.extract", "kg.mine", "kg.eval", "kg.learn"}),
    ("store", {"kg.store"}),
    ("query", {"kg.query", "kg.graphio", "kg.viz"}),
    ("write", {"kg.write", "kg.summary"}),
    ("pipelines", {"kg.build", "kg.cluster", "kg.migrate", "kg.migrate_links", "kg.migrate_step",
                    "kg.reextract"}),
    ("interfaces", {"kg.cli", "kg.__main__", "kg", "api", "paperkg"}),
]
# Two GraphQL object types that refer to each other (Paper.results -> Result.paper) are one schema split
# over two files; strawberry.lazy resolves the references. No other cycle is allowed.
ALLOWED_CYCLES = [{"api.types", "api.results"}]
# Store write methods; papers are written by kg.write alone (a new store too). The store implements them,
# kg.build writes the schema graphs, kg.migrate (and its step kg.migrate_links) upgrades a layout; nothing
# else calls them (kg.reextract rewrites entity descriptions through kg.write).
WRITES = {"replace_graphs", "drop_graphs", "set_format_version", "bulk_load", "_update"}
WRITERS: dict[str, set[str]] = {
    "kg.store": WRITES, "kg.write": WRITES, "kg.build": {"replace_graphs"},
    "kg.migrate": {"replace_graphs", "set_format_version"}, "kg.migrate_links": {"replace_graphs"},
}


def modules() -> dict[str, Path]:
    out = {}
    for package in ("kg", "api", "paperkg"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = modules()


def _type_only(tree: ast.AST) -> set[int]:
    """Ids of the nodes under `if TYPE_CHECKING:`."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(sub) for child in node.body for sub in ast.walk(child))
    return hidden


def imports(path: Path) -> Iterator[str]:
    """The project modules `path` imports (the module itself for `from package import module`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_only(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module
                     for a in node.names]
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name:
                yield name


GRAPH = {m: set(imports(p)) - {m} for m, p in MODULES.items()}


def layer(module: str) -> int:
    """The index of the layer holding `module` (the longest unit name that prefixes it)."""
    best, found = -1, -1
    for i, (_, units) in enumerate(LAYERS):
        for unit in units:
            inside = module.startswith(unit + ".") and unit != "kg"  # bare "kg" is kg/__init__.py alone
            if (module == unit or inside) and len(unit) > best:
                best, found = len(unit), i
    assert found >= 0, f"{module} is in no layer: add it to LAYERS in {__file__} and to README"
    return found


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer(module)


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a higher layer, as "module (layer) imports module (layer)"."""
    return [f"{m} ({LAYERS[layer(m)][0]}) imports {t} ({LAYERS[layer(t)][0]})"
            for m, targets in sorted(graph.items()) for t in sorted(targets) if layer(t) > layer(m)]


def test_no_module_imports_a_higher_layer() -> None:
    assert upward(GRAPH) == []


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, set())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycles() -> None:
    assert [sorted(c) for c in cycles(GRAPH) if c not in ALLOWED_CYCLES] == []


def test_the_checker_sees_cycles_and_upward_imports() -> None:
    """The rules can fail: a made-up cycle and a made-up upward import are caught."""
    graph = {m: set(targets) for m, targets in GRAPH.items()}
    graph["kg.types"].add("kg.write")  # kg.write imports kg.types (through kg.rdf.mapping at least)
    assert any({"kg.types", "kg.write"} <= c for c in cycles(graph))
    assert upward(graph) == ["kg.types (records) imports kg.write (write)"]


def test_only_the_write_path_writes() -> None:
    calls = []
    for module, path in sorted(MODULES.items()):
        allowed = next((m for w, m in WRITERS.items() if module == w or module.startswith(w + ".")), set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr in WRITES - allowed:
                calls.append(f"{module}:{func.lineno} calls {func.attr}")
    assert calls == []
