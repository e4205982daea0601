"""The package's modules are layers that import downward only (docs/ARCHITECTURE.md,
python/): the extension and the values at the bottom, then the JAX front end
and the XLA side, the input step, the runner, and the entry points (check/fix/report,
guard, the pytest plugin, the console command) on top. Every import counts, those inside
functions too, so that no circle hides in a function-local import."""

import ast
import pathlib

import hlo_offload

PACKAGE = pathlib.Path(hlo_offload.__file__).parent

# Module -> layer. A module imports only modules of lower layers.
LAYERS = {
    "_core": -1,  # the extension
    "_types": 0,
    "_sources": 1, "_spmd_partition": 1, "_xla_compile": 1,
    "_partition": 2, "_xla": 2, "_jax": 2,
    "_inputs": 3,
    "_runner": 4,
    "_api": 5, "_guard": 5, "_cli": 5,
    "__init__": 6, "__main__": 6, "pytest_plugin": 6,
}


def _imports(path: pathlib.Path):
    """The package's modules that `path` imports (relative imports, anywhere in it)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                yield node.module.split(".")[0], node.lineno
            else:
                for alias in node.names:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith("hlo_offload."):
            yield node.module.split(".")[1], node.lineno


def test_every_module_has_a_layer():
    names = {p.stem for p in PACKAGE.glob("*.py")}
    assert names == set(LAYERS) - {"_core"}


def test_imports_go_downward_only():
    upward = []
    for path in sorted(PACKAGE.glob("*.py")):
        layer = LAYERS[path.stem]
        for module, line in _imports(path):
            if module in LAYERS and LAYERS[module] >= layer and module != path.stem:
                upward.append(f"{path.name}:{line} imports {module} "
                              f"(layer {LAYERS[module]} >= {layer})")
    assert not upward, "\n".join(upward)
