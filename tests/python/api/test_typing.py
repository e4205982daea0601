"""The package's types: it ships py.typed and the stubs of its extension (_core.pyi, made
by nanobind's stubgen in the build), its public functions and methods are annotated (mypy
checks them: pyproject.toml, the python.mypy test), and the enums of severities and fix
strategies are the strings they always were."""
import ast
import dataclasses
import enum
import inspect
import json
import pathlib

import pytest

import hlo_offload
from hlo_offload import Severity, Strategy, _core

PACKAGE = pathlib.Path(hlo_offload.__file__).parent


def test_ships_py_typed_and_core_stubs():
    assert (PACKAGE / "py.typed").is_file()
    stub = PACKAGE / "_core.pyi"
    assert stub.is_file(), "the build makes _core.pyi (nanobind_add_stub) and installs it"
    tree = ast.parse(stub.read_text())
    declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    declared |= {t.id for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                 if isinstance(t, ast.Name)}
    public = {name for name in dir(_core) if not name.startswith("_")}
    assert public <= declared, public - declared


def _unannotated(fn, owner: str):
    """The parameters (and "return") of `fn` that have no annotation."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return []
    missing = [p.name for i, p in enumerate(signature.parameters.values())
               if p.annotation is inspect.Parameter.empty and
               not (i == 0 and p.name in ("self", "cls"))]
    if signature.return_annotation is inspect.Signature.empty and fn.__name__ != "__init__":
        missing.append("return")
    return [f"{owner}{fn.__name__}: {m}" for m in missing]


def test_public_api_is_annotated():
    missing = []
    for name in hlo_offload.__all__:
        obj = getattr(hlo_offload, name)
        if inspect.isfunction(obj):
            missing += _unannotated(obj, "")
        elif inspect.isclass(obj) and not issubclass(obj, enum.Enum):
            for attr, value in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(value, property):
                    missing += _unannotated(value.fget, f"{name}.")
                elif isinstance(value, (classmethod, staticmethod)):
                    missing += _unannotated(value.__func__, f"{name}.")
                elif inspect.isfunction(value) and not dataclasses.is_dataclass(obj):
                    missing += _unannotated(value, f"{name}.")
    assert not missing, missing


def test_severity_and_strategy_are_their_strings():
    assert Severity.ERROR == "error" and "warning" == Severity.WARNING
    assert [str(s) for s in Severity] == ["error", "warning", "note"]
    assert f"{Severity.NOTE}|{Severity.NOTE:>6}" == "note|  note"
    assert json.dumps({"s": Severity.ERROR}) == '{"s": "error"}'
    assert {"error": 1}[Severity.ERROR] == 1 and Severity("warning") is Severity.WARNING
    assert hlo_offload.STRATEGIES == ("host-output", "move-to-device")
    assert [s.value for s in Strategy] == list(hlo_offload.STRATEGIES)
    assert all(isinstance(sev, Severity) for _, _, sev, _ in hlo_offload.codes())


def test_results_carry_the_enums(e1200_text):
    result = hlo_offload.check(e1200_text)
    (error,) = result.errors
    assert error.severity is Severity.ERROR and error.severity == "error"
    assert error.to_json()["severity"] == "error"
    fixed = hlo_offload.fix(e1200_text, strategy=Strategy.MOVE_TO_DEVICE)
    assert fixed.strategy is Strategy.MOVE_TO_DEVICE and fixed.strategy == "move-to-device"
    assert hlo_offload.fix(e1200_text, strategy="host-output").strategy is \
        Strategy.HOST_OUTPUT
    with pytest.raises(ValueError, match="unknown fix strategy"):
        hlo_offload.fix(e1200_text, strategy="elsewhere")
