"""The import graph of ``engines/``, ``workloads/`` and ``sim/`` stays acyclic, one-way and public.

The graph is read from the source with ``ast`` (no module is imported): every ``import`` and
``from ... import`` statement counts, at module level and inside functions alike, with relative
imports resolved and ``from pkg import mod`` read as an edge to the submodule ``pkg.mod``.  An
edge goes to the module named (not to the packages above it).  Three rules are checked:

* **no cycles** -- every strongly connected component of the graph is a single module;
* **layers** -- a module imports only from its own layer or lower ones (``LAYERS``); inside
  ``engines`` the sub-order ``pattern < compile < evaluators < planners`` holds (``remote`` and
  ``shedding`` sit beside ``planners``), and ``engines`` never imports ``workloads``;
* **no private names across modules** -- no ``from m import _x``, no ``m._x`` attribute read
  and no ``getattr(m, "_x")`` of another module's private name.

``sim.experiments.functions`` finds study modules by string (``importlib``): a plug-in lookup,
not an import statement, so it adds no edge.  The checking functions take a plain graph (a list
of ``Edge``), so the synthetic cases below exercise each rule on a hand-made graph.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
ROOTS = ("engines", "workloads", "sim")

# (module prefix, layer); the longest matching prefix wins.  Lower layers never import higher ones.
LAYERS: tuple[tuple[str, int], ...] = (
    ("engines", 0),
    ("workloads", 0),
    ("sim", 0),          # sim/__init__.py: fixes the Numba cache location (imports engines only)
    ("sim.atomic", 1),
    ("sim.core", 2),
    ("sim.experiments", 3),
    ("sim.tools", 4),
    ("sim.studies", 5),
    ("sim.api", 6),
    ("sim.cli", 7),
)
LAYER_NAMES = {0: "engines/workloads", 1: "sim.atomic", 2: "sim.core", 3: "sim.experiments",
               4: "sim.tools", 5: "sim.studies", 6: "sim.api", 7: "sim.cli"}

# sub-order inside engines; modules outside these packages are unranked (only cycles apply)
ENGINE_LAYERS: tuple[tuple[str, int], ...] = (
    ("engines.pattern", 0),
    ("engines.compile", 1),
    ("engines.evaluators", 2),
    ("engines.planners", 3),
    ("engines.remote", 3),
    ("engines.shedding", 3),
)

# pairs (importer prefix, imported prefix) that are forbidden regardless of the layer numbers
FORBIDDEN: tuple[tuple[str, str], ...] = (
    ("engines", "workloads"),
)


@dataclass(frozen=True)
class Edge:
    """One import: ``src`` imports ``dst`` at ``file:line``; ``name`` is the imported name when
    the statement takes a name out of ``dst`` (``from dst import name`` or ``dst.name``)."""

    src: str
    dst: str
    file: str
    line: int
    name: str | None = None


# --------------------------------------------------------------------------- graph building

def module_files(root: Path = REPO_ROOT, roots: tuple[str, ...] = ROOTS) -> dict[str, Path]:
    """Dotted module name -> source file for every module under ``roots``."""
    out: dict[str, Path] = {}
    for top in roots:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _resolve_from(module: str, is_package: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _known(name: str, modules: set[str]) -> str | None:
    """The longest prefix of ``name`` that is a known module, or None (external import)."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        cand = ".".join(parts[:i])
        if cand in modules:
            return cand
    return None


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else f"{head}.{node.attr}"
    return None


def file_edges(module: str, path: Path, modules: set[str], rel: str) -> list[Edge]:
    """Edges out of one module: its import statements and its ``m._x`` reads of other modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    edges: list[Edge] = []
    aliases: dict[str, str] = {}          # local name -> module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                dst = _known(alias.name, modules)
                if dst is None:
                    continue
                edges.append(Edge(module, dst, rel, node.lineno))
                if alias.asname:
                    aliases[alias.asname] = dst
                else:                      # ``import a.b.c`` binds ``a``; reads go via a.b.c
                    for i in range(1, alias.name.count(".") + 2):
                        pre = ".".join(alias.name.split(".")[:i])
                        if pre in modules:
                            aliases.setdefault(pre, pre)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_from(module, is_package, node.level, node.module)
            if _known(base, modules) is None:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    edges.append(Edge(module, sub, rel, node.lineno))
                    aliases[alias.asname or alias.name] = sub
                else:
                    dst = _known(base, modules)
                    name = None if alias.name == "*" else alias.name
                    edges.append(Edge(module, dst, rel, node.lineno, name))
    for node in ast.walk(tree):
        attr = None
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            head, attr = _dotted(node.value), node.attr
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and _is_private(node.args[1].value):
            head, attr = _dotted(node.args[0]), node.args[1].value
        if attr is not None:
            if head is None:
                continue
            first, _, rest = head.partition(".")
            if first not in aliases:
                continue
            target = aliases[first] + ("." + rest if rest else "")
            if target in modules and target != module:
                edges.append(Edge(module, target, rel, node.lineno, attr))
    return edges


def build_graph(root: Path = REPO_ROOT, roots: tuple[str, ...] = ROOTS) -> list[Edge]:
    files = module_files(root, roots)
    names = set(files)
    edges: list[Edge] = []
    for module, path in files.items():
        edges.extend(file_edges(module, path, names, str(path.relative_to(root))))
    return edges


# --------------------------------------------------------------------------- the three checks

def find_cycles(edges: list[Edge]) -> list[list[str]]:
    """One concrete cycle (``[a, b, ..., a]``) per strongly connected component of size > 1."""
    adj: dict[str, set[str]] = {}
    for e in edges:
        if e.src != e.dst:
            adj.setdefault(e.src, set()).add(e.dst)
            adj.setdefault(e.dst, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    sccs: list[list[str]] = []
    counter = 0
    for start in sorted(adj):              # iterative Tarjan
        if start in index:
            continue
        work = [(start, iter(sorted(adj[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(adj[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))
    cycles = []
    for comp in sccs:                       # shortest cycle through the component's first node
        members = set(comp)
        start = comp[0]
        prev: dict[str, str] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt_frontier = []
            for u in frontier:
                for v in sorted(adj[u] & members):
                    if v == start:
                        found = u
                        break
                    if v not in prev:
                        prev[v] = u
                        nxt_frontier.append(v)
                if found is not None:
                    break
            frontier = nxt_frontier
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        cycles.append(list(reversed(path)) + [start])
    return sorted(cycles)


def _rank(module: str, table: tuple[tuple[str, int], ...]) -> int | None:
    best: tuple[int, int] | None = None
    for prefix, rank in table:
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), rank)
    return None if best is None else best[1]


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def find_upward(edges: list[Edge]) -> list[str]:
    """``file:line`` messages for every import from a higher layer (or a forbidden pair)."""
    out = []
    for e in edges:
        src, dst = _rank(e.src, LAYERS), _rank(e.dst, LAYERS)
        if src is not None and dst is not None and dst > src:
            out.append(f"{e.file}:{e.line}: {e.src} (layer {src}, {LAYER_NAMES[src]}) imports "
                       f"{e.dst} (layer {dst}, {LAYER_NAMES[dst]}); a layer imports only from "
                       f"its own layer or lower ones")
            continue
        if _under(e.src, "engines") and _under(e.dst, "engines"):
            s, d = _rank(e.src, ENGINE_LAYERS), _rank(e.dst, ENGINE_LAYERS)
            if s is not None and d is not None and d > s:
                out.append(f"{e.file}:{e.line}: {e.src} imports {e.dst}; inside engines the "
                           f"order is pattern < compile < evaluators < planners/remote/shedding")
                continue
        for lo, hi in FORBIDDEN:
            if _under(e.src, lo) and _under(e.dst, hi):
                out.append(f"{e.file}:{e.line}: {e.src} imports {e.dst}; {lo} never imports {hi}")
    return sorted(set(out))


def find_private(edges: list[Edge]) -> list[str]:
    """``file:line`` messages for every use of another module's private (``_x``) name."""
    return sorted({f"{e.file}:{e.line}: {e.src} uses private name {e.name!r} of {e.dst}"
                   for e in edges
                   if e.name is not None and _is_private(e.name) and e.src != e.dst})


# --------------------------------------------------------------------------- synthetic graphs

def test_cycle_is_reported():
    edges = [Edge("engines.a", "engines.b", "engines/a.py", 1),
             Edge("engines.b", "engines.c", "engines/b.py", 2),
             Edge("engines.c", "engines.a", "engines/c.py", 3),
             Edge("engines.c", "engines.d", "engines/c.py", 4)]
    assert find_cycles(edges) == [["engines.a", "engines.b", "engines.c", "engines.a"]]
    assert find_cycles(edges[:2] + edges[3:]) == []


def test_upward_edge_is_reported():
    edges = [Edge("sim.core.queue", "sim.experiments.runner", "sim/core/queue.py", 7),
             Edge("sim.experiments.runner", "sim.core.queue", "sim/experiments/runner.py", 3),
             Edge("engines.evaluators.x", "engines.planners.y", "engines/evaluators/x.py", 9),
             Edge("engines.stream", "workloads.stocks", "engines/stream.py", 5),
             Edge("sim", "engines", "sim/__init__.py", 1)]
    found = find_upward(edges)
    assert len(found) == 3
    assert found[0].startswith("engines/evaluators/x.py:9: ")
    assert found[1].startswith("engines/stream.py:5: ") and "never imports workloads" in found[1]
    assert found[2].startswith("sim/core/queue.py:7: ") and "layer 2" in found[2]


def test_private_import_is_reported():
    edges = [Edge("sim.tools.x", "sim.tools.y", "sim/tools/x.py", 4, "_helper"),
             Edge("sim.tools.x", "sim.tools.y", "sim/tools/x.py", 5, "helper"),
             Edge("sim.tools.x", "sim.tools.y", "sim/tools/x.py", 6, "__version__"),
             Edge("sim.tools.x", "sim.tools.x", "sim/tools/x.py", 8, "_own")]
    assert find_private(edges) == [
        "sim/tools/x.py:4: sim.tools.x uses private name '_helper' of sim.tools.y"]


def test_graph_reader_resolves_imports(tmp_path):
    pkg = tmp_path / "engines"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text(
        "from . import b\nfrom .b import _x\n\ndef f():\n    from engines import c\n"
        "    return c._y\n")
    (pkg / "sub" / "b.py").write_text("import engines.c as cc\nimport os\n_x = 1\n")
    (pkg / "c.py").write_text("from .sub import a\n_y = 2\nz = getattr(a, '_hidden', 0)\n")
    edges = build_graph(tmp_path, ("engines",))
    pairs = {(e.src, e.dst, e.line, e.name) for e in edges}
    assert pairs == {("engines.sub.a", "engines.sub.b", 1, None),
                     ("engines.sub.a", "engines.sub.b", 2, "_x"),
                     ("engines.sub.a", "engines.c", 5, None),
                     ("engines.sub.a", "engines.c", 6, "_y"),
                     ("engines.sub.b", "engines.c", 1, None),
                     ("engines.c", "engines.sub.a", 1, None),
                     ("engines.c", "engines.sub.a", 3, "_hidden")}
    assert find_cycles(edges) == [["engines.c", "engines.sub.a", "engines.c"]]
    assert len(find_private(edges)) == 3


# --------------------------------------------------------------------------- the real tree

def test_no_import_cycles():
    cycles = find_cycles(build_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_upward_imports():
    found = find_upward(build_graph())
    assert not found, "imports from a higher layer:\n" + "\n".join(found)


def test_no_private_imports_across_modules():
    found = find_private(build_graph())
    assert not found, "private names used across modules:\n" + "\n".join(found)


if __name__ == "__main__":
    graph = build_graph()
    for title, items in (("cycles", [" -> ".join(c) for c in find_cycles(graph)]),
                         ("upward", find_upward(graph)), ("private", find_private(graph))):
        print(f"== {title}: {len(items)}")
        print("\n".join(items))
