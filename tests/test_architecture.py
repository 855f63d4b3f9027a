"""The house's plan, read from the code's own imports (docs/architecture.md): layers the folders show.

Every import between the project's modules (at module level or inside a function) is read with
``ast``. The layers, bottom up: the model (``mechanism``), the kinematics engine (``loops`` and its
kernels), the dynamics engine (``dynamics``), the suspension workbench (``loops.suspension``), design
studies (``loops.study``), the command line (``*.cli``). Imports run only downward; kernels import
only kernels and the model; nothing imports another module's private name; there is no cycle.
"""

from __future__ import annotations

import ast
import pathlib

import networkx as nx
import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("mechanism", "loops", "dynamics")

#: The only imports that run up a layer, each marked "layer" in a comment where it stands: the
#: public API's convenience methods (DESIGN.md: ``m.check()``, ``m.sweep()``, ``m.assemble()``, a
#: notebook's ``_repr_html_``, and the closure check a model file's reader makes through
#: ``Mechanism.closure_defect``), which import the engine inside the method, and the numba
#: object-mode callback of the load kernels into the Python load functions.
UPWARD_EXCEPTIONS = {
    ("mechanism.model", "loops.mobility"),
    ("mechanism.model", "loops.sweep"),
    ("mechanism.model", "loops.newton"),
    ("mechanism.model", "loops.compiled"),
    ("mechanism.model", "loops.configuration"),
    ("mechanism.model", "loops.views.notebook"),
    ("mechanism.model", "loops.statics"),
    ("loops.kernels.loads", "loops.loads"),
}


def _modules():
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _owner(name):
    """The project module ``name`` (dotted) belongs to, or None for a third-party one."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _source_of(module, node):
    """The absolute module name an ``ImportFrom`` reads from."""
    if not node.level:
        return node.module
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports():
    """(importer, imported, line, private name or None) for every import between project modules."""
    edges = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _owner(alias.name)
                    if target:
                        edges.append((module, target, node.lineno, None))
                        if alias.name in MODULES:
                            aliases[alias.asname or alias.name.split(".")[0]] = (
                                alias.name if alias.asname else alias.name.split(".")[0])
            elif isinstance(node, ast.ImportFrom):
                source = _source_of(module, node)
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    target = full if full in MODULES else _owner(source)
                    if not target:
                        continue
                    private = alias.name if (alias.name.startswith("_") and not alias.name.startswith("__")
                                             and full not in MODULES) else None
                    edges.append((module, target, node.lineno, private))
                    if full in MODULES:
                        aliases[alias.asname or alias.name] = full
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                edges.append((module, aliases[node.value.id], node.lineno, node.attr))
    return edges


IMPORTS = _imports()


def layer(module):
    """0 the model, 1 the kinematics engine, 2 the dynamics engine, 3 the suspension workbench,
    4 design studies, 5 the command line (``*.cli`` and ``python -m`` entries)."""
    parts = module.split(".")
    if "cli" in parts or parts[-1] == "__main__":
        return 5
    if parts[0] == "mechanism":
        return 0
    if parts[:2] == ["loops", "study"]:
        return 4
    if parts[:2] == ["loops", "suspension"]:
        return 3
    if parts[0] == "dynamics":
        return 2
    return 1


def _is_kernel(module):
    return ".kernels" in module


def test_the_reading_sees_the_house():
    """The reader finds the modules and their imports (a broken reader would pass every test below)."""
    assert {"mechanism.model", "loops.kernels.closure", "dynamics.cli", "loops.suspension.cli"} <= set(MODULES)
    assert ("loops.sweep", "mechanism.errors") in {(a, b) for a, b, _, _ in IMPORTS}
    assert layer("loops.kernels.closure") == 1 and layer("loops.study.cli") == 5 and layer("mechanism.units") == 0


def test_imports_run_only_downward():
    upward = sorted({(a, b, line) for a, b, line, _ in IMPORTS
                     if layer(b) > layer(a) and (a, b) not in UPWARD_EXCEPTIONS})
    assert upward == []


def test_every_upward_exception_is_still_needed_and_named_in_a_comment():
    """An exception no import uses any more goes from the list; each one in use says why beside it."""
    for importer, imported in UPWARD_EXCEPTIONS:
        lines = [line for a, b, line, _ in IMPORTS if (a, b) == (importer, imported)]
        assert lines, f"{importer} -> {imported} is listed but not imported"
        text = MODULES[importer].read_text().splitlines()
        for line in lines:
            nearby = " ".join(text[max(0, line - 6):line])
            assert "layer" in nearby.lower(), f"{importer}:{line} does not say why it imports {imported}"


def test_kernels_import_only_kernels_and_the_model():
    stray = sorted({(a, b, line) for a, b, line, _ in IMPORTS
                    if _is_kernel(a) and not _is_kernel(b) and layer(b) != 0
                    and (a, b) not in UPWARD_EXCEPTIONS})
    assert stray == []


def test_no_module_imports_another_modules_private_name():
    private = sorted({(a, b, line, name) for a, b, line, name in IMPORTS if name and a != b})
    assert private == []


def test_no_import_cycle():
    graph = nx.DiGraph()
    graph.add_edges_from((a, b) for a, b, _, _ in IMPORTS if a != b and not b.startswith(a + "."))
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert cycles == []


@pytest.mark.parametrize("path", sorted(MODULES.values()), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_stay_readable(path):
    """No module over 600 lines, no function over 80, but a compiled kernel whose docstring gives the
    measured gain of its size (issue 22, point 5)."""
    text = path.read_text()
    assert len(text.splitlines()) <= 600
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            size = node.end_lineno - node.lineno + 1
            if size > 80:
                doc = ast.get_docstring(node) or ""
                assert "measured" in doc.lower(), f"{node.name}: {size} lines and no measured reason"
