"""The named choices and the diagnostic codes come from the core (pipeline/choices.h,
diag/codes.def) as the extension's enums: each with its spelling, the names the command
line takes, its members in the order of the help; the package's own lists and enums are
made from them, and the command line refuses what they refuse."""
import re

import pytest

import hlo_offload
from hlo_offload import _core

from api_helpers import run_cli

# Each enum of a choice, the option that takes it and a command that has the option.
CHOICES = [
    (_core.Pipeline, "--pipeline", "check"),
    (_core.DiagnosticFormat, "--format", "check"),
    (_core.ReportFormat, "--format", "report"),
    (_core.FixStrategy, "--strategy", "fix"),
    (_core.Backend, "--backend", "check"),
]


@pytest.mark.parametrize("enum,option,command", CHOICES,
                         ids=[c[0].__name__ for c in CHOICES])
def test_choice_enums_are_the_command_lines_names(enum, option, command, cli, tmp_path):
    module = tmp_path / "m.hlo"
    module.write_text("HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }\n")
    status, _, err = run_cli(cli, command, f"{option}=bogus", module)
    assert status == 2
    listed = re.search(r"bogus not in \{([^}]*)\}", err)
    assert listed, err
    assert enum.names() == listed.group(1).split(",")
    # A member per name that is not an alias, named by its spelling, and back.
    canonical = []
    for name in enum.names():
        member = enum.parse(name)
        assert isinstance(member, enum)
        if member.spelling == name:
            canonical.append(name)
            assert member.name == name.upper().replace("-", "_")
    assert [m.spelling for m in enum] == canonical
    assert enum.parse("bogus") is None


def test_backend_aliases_are_the_gpu():
    assert [b.spelling for b in _core.Backend] == ["tpu", "gpu", "any"]
    assert _core.Backend.parse("cuda") is _core.Backend.GPU
    assert _core.Backend.parse("rocm") is _core.Backend.GPU


def test_options_take_and_give_the_spellings():
    options = _core.PipelineOptions()
    assert options.pipeline == _core.Pipeline.XLA.spelling
    assert options.fix_strategy == _core.FixStrategy.HOST_OUTPUT.spelling
    assert options.lint.backend == _core.Backend.ANY.spelling
    for strategy in _core.FixStrategy:
        options.fix_strategy = strategy.spelling
        assert options.fix_strategy == strategy.spelling
    options.lint.backend = "cuda"
    assert options.lint.backend == "gpu"
    front = _core.FrontEndInput()
    front.backend = "rocm"
    assert front.backend == "gpu"


@pytest.mark.parametrize("owner,attr,message", [
    ("options", "pipeline", "unknown pipeline 'bogus' (xla or offload)"),
    ("options", "fix_strategy",
     "unknown fix strategy 'bogus' (host-output or move-to-device)"),
    ("lint", "backend", "unknown backend 'bogus' (tpu, gpu or any)"),
    ("front", "backend", "unknown backend 'bogus' (tpu, gpu or any)"),
])
def test_unknown_choices_are_refused_as_before(owner, attr, message):
    options = _core.PipelineOptions()
    target = {"options": options, "lint": options.lint,
              "front": _core.FrontEndInput()}[owner]
    with pytest.raises(ValueError) as e:
        setattr(target, attr, "bogus")
    assert str(e.value) == message


def test_code_enum_is_codes_def():
    assert [(c.spelling, c.title, c.severity.spelling, c.summary) for c in _core.Code] == \
        list(_core.codes())
    assert [c.name for c in _core.Code] == [c.spelling for c in _core.Code]
    assert _core.Code.parse("e1200") is _core.Code.E1200
    assert _core.Code.parse("HO9999") is None
    assert _core.Code.E1200.severity is _core.Severity.ERROR
    assert _core.Code.HO3005.help_uri.endswith("HO3005.md")
    assert [s.spelling for s in _core.Severity] == ["error", "warning", "note"]


def test_memory_kinds_are_valued_by_memory_space():
    assert {k.value: k.spelling for k in _core.MemoryKind} == \
        {0: "device", 5: "pinned_host", 6: "unpinned_host"}


def test_max_nodes_range_is_the_command_lines(cli, tmp_path):
    least, most = _core.max_nodes_range()
    module = tmp_path / "m.hlo"
    module.write_text("HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }\n")
    for value, status in [(least - 1, 2), (least, 0), (most, 0), (most + 1, 2)]:
        got, _, err = run_cli(cli, "report", f"--max-nodes={value}", module)
        assert got == status, (value, err)
    _, _, err = run_cli(cli, "report", "--max-nodes=0", module)
    assert f"not in range {least} to {most}" in err
    for value in (least, most):
        hlo_offload.report(module.read_text(), max_nodes=value)
    for value in (least - 1, most + 1):
        with pytest.raises(ValueError, match="max_nodes"):
            hlo_offload.report(module.read_text(), max_nodes=value)


def test_the_packages_enums_and_lists_are_the_cores():
    from hlo_offload import _api
    assert [(s.name, s.value) for s in hlo_offload.Strategy] == \
        [(m.name, m.spelling) for m in _core.FixStrategy]
    assert [(s.name, s.value) for s in hlo_offload.Severity] == \
        [(m.name, m.spelling) for m in _core.Severity]
    assert hlo_offload.STRATEGIES == tuple(m.spelling for m in _core.FixStrategy)
    assert hlo_offload.PIPELINES == tuple(m.spelling for m in _core.Pipeline)
    assert _api.MAX_NODES_RANGE == _core.max_nodes_range()
    assert [(severity, name) for code, name, severity, _ in hlo_offload.codes()] == \
        [(hlo_offload.Severity(c.severity.spelling), c.title) for c in _core.Code]


@pytest.mark.parametrize("function,argument,message", [
    ("fix", {"strategy": "bogus"},
     "unknown fix strategy 'bogus': one of host-output, move-to-device"),
    ("check", {"pipeline": "bogus"}, "unknown pipeline 'bogus': one of xla, offload"),
])
def test_the_packages_messages_list_the_cores_names(function, argument, message, e1200_text):
    with pytest.raises(ValueError) as e:
        getattr(hlo_offload, function)(e1200_text, **argument)
    assert str(e.value) == message
