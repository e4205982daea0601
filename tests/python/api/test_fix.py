"""fix(): the fixed text is what `hlo-offload fix` writes, and it checks clean."""
import pytest

import hlo_offload
from api_helpers import run_cli


@pytest.mark.parametrize("strategy", hlo_offload.STRATEGIES)
def test_fix_e1200(cli, tmp_path, e1200_text, strategy):
    path = tmp_path / "step.hlo"
    path.write_text(e1200_text)
    fixed = hlo_offload.fix(path, strategy=strategy)
    assert isinstance(fixed, str)
    status, out, err = run_cli(cli, "fix", f"--strategy={strategy}", path)
    assert status == 0
    assert fixed == out
    assert fixed.text == out
    assert fixed.changed
    assert fixed.strategy == strategy
    assert fixed.fixed_outputs == [(1,)]
    assert fixed.fixed_output_paths == [""]
    recheck = hlo_offload.check(fixed)
    assert not recheck.errors, str(recheck)
    assert [d.code for d in hlo_offload.check(e1200_text).errors] == ["E1200"]
    if strategy == "host-output":
        assert fixed.output_memory_kinds == ["device", "pinned_host"]
        assert "f32[32,256]{1,0:S(5)})}" in fixed.splitlines()[0]
    else:
        assert fixed.output_memory_kinds == ["device", "device"]
        assert "MoveToDevice" in fixed
    assert "FixedModule" in repr(fixed)


def test_fix_nothing_to_fix(cli, tmp_path, clean_text):
    text = "// a comment the fix keeps\n" + clean_text
    fixed = hlo_offload.fix(text)
    assert fixed == text
    assert not fixed.changed
    assert fixed.fixed_outputs == []
    assert fixed.output_memory_kinds == ["device"]
    assert any("nothing to fix" in d.message for d in fixed.diagnostics)
    path = tmp_path / "clean.hlo"
    path.write_text(text)
    assert hlo_offload.fix(path) == run_cli(cli, "fix", "--strategy=host-output", path)[1]


def test_fix_corpus_e1200(cli, corpus_file):
    """Every corpus file with an E1200 and no other error is fixed as the command line
    fixes it, and the result re-checks without an error."""
    try:
        result = hlo_offload.check(corpus_file)
    except hlo_offload.ParseError:
        pytest.skip("does not parse without --split-input-file")
    codes = {d.code for d in result.errors}
    if codes != {"E1200"}:
        pytest.skip("no E1200, or other errors beside it")
    for strategy in hlo_offload.STRATEGIES:
        status, out, _ = run_cli(cli, "fix", f"--strategy={strategy}", corpus_file)
        if status != 0:
            with pytest.raises(hlo_offload.FixError):
                hlo_offload.fix(corpus_file, strategy=strategy)
            continue
        fixed = hlo_offload.fix(corpus_file, strategy=strategy)
        assert fixed == out
        assert fixed.changed
        assert not hlo_offload.check(fixed).errors
