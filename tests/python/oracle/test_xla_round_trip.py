"""What hlo-offload prints, judged by XLA's parser (jaxlib's hlo_module_from_text, a run of
jaxlib 0.10.2 here).

For every module of the corpus that both XLA's parser and hlo-offload accept (see
test_xla_disagreements.py for the others):
- `hlo-offload fmt` output parses in XLA, and XLA prints it exactly as it prints the input,
  both canonically (HloPrintOptions::Canonical()) and in full (names, metadata,
  backend_config, large constants): the round trip changes nothing XLA can see.
- XLA's own printing of the module (HloModule.to_string(), the form of its dumps: '%' names,
  computation signatures) goes through `fmt` just as unchanged.
- for every offloading module (offload annotations or S(5) in the text), the output of
  `hlo-offload opt` (the default pipeline, and each set of pass options the file's RUN lines
  give opt) and of `hlo-offload fix --strategy=host-output` and `--strategy=move-to-device`
  (with the pass options of the file's fix RUN lines) parses in XLA. opt exiting 1 (an error
  found in the input, nothing printed) and fix exiting 1 (could not fix) are skips that say so.
"""
import pytest

pytest.importorskip("jax", reason="XLA's parser, the oracle, comes with jaxlib"
                    " (pip install '.[jax]')")

import xla_oracle  # noqa: E402

STRATEGIES = ("host-output", "move-to-device")

# Modules whose fmt output XLA does not read as it reads the input, by a known bug of
# hlo-offload's printer: module id -> the bug. Strict: a module that starts passing fails.
KNOWN_PRINTER_BUGS: dict = {}
if xla_oracle.reads_compact_gte():
    # jaxlib 0.12.0.1's parser (run here) names the get-tuple-element it makes for the
    # first `%p#1` `p_1` and renames the text's own later `%p_1` to `p_1.1` (one name
    # uniquer for both, in parse order); hlo-offload keeps the text's names and names the
    # get-tuple-element `p_1.1`. Both print the same module but for those two names.
    KNOWN_PRINTER_BUGS["lit/printer/compact-gte.hlo"] = (
        "XLA gives a compact get-tuple-element's name to the first comer in parse order, "
        "renaming a later instruction of the text with that name; hlo-offload keeps the "
        "text's names and suffixes the get-tuple-element's")


def _with_shared_placeholder(params, *rest):
    """params, and when the shared corpus is absent one more that skips saying so."""
    if not xla_oracle.shared_modules():
        params.append(pytest.param(None, *rest, id="shared-corpus"))
    return params


def _fmt_params(known_bugs=True):
    params = []
    for m in xla_oracle.all_modules():
        marks = ()
        if known_bugs and m.id in KNOWN_PRINTER_BUGS:
            marks = (pytest.mark.xfail(strict=True, reason=KNOWN_PRINTER_BUGS[m.id]),)
        params.append(pytest.param(m.id, id=m.id, marks=marks))
    return _with_shared_placeholder(params)


def _options_id(options):
    return " ".join(options) if options else "default"


def _opt_params():
    params = []
    for m in xla_oracle.all_modules():
        if m.offloading:
            params += [pytest.param(m.id, options, id="%s:%s" % (m.id, _options_id(options)))
                       for options in m.opt_options]
    return _with_shared_placeholder(params, ())


def _fix_params():
    params = []
    for m in xla_oracle.all_modules():
        if m.offloading:
            params += [pytest.param(m.id, ("--strategy=" + s,) + options,
                                    id="%s:%s" % (m.id, " ".join(("--strategy=" + s,) + options)))
                       for s in STRATEGIES for options in m.fix_options]
    return _with_shared_placeholder(params, ())


def _module_both_accept(module_id, hloff_bin, request):
    """The module, after skipping when it cannot be checked: the shared corpus is absent,
    it is not UTF-8, or XLA's parser or hlo-offload rejects it."""
    module = xla_oracle.module_or_skip(module_id, request)
    if module.text is None:
        pytest.skip("not UTF-8: XLA's hlo_module_from_text takes a str")
    if xla_oracle.xla_input(module_id).error is not None:
        pytest.skip("XLA's parser rejects the input (see test_xla_disagreements.py)")
    if not xla_oracle.accepted_by_us(hloff_bin, module_id):
        pytest.skip("hlo-offload rejects the input (see test_xla_disagreements.py)")
    return module


def _first_difference(a: str, b: str) -> str:
    a_lines, b_lines = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(a_lines, b_lines)):
        if x != y:
            return "line %d:\n  input: %s\n  fmt:   %s" % (i + 1, x[:300], y[:300])
    return "line %d: one printing ends (%d against %d lines)" % (
        min(len(a_lines), len(b_lines)) + 1, len(a_lines), len(b_lines))


@pytest.mark.parametrize("module_id", _fmt_params())
def test_fmt_round_trip_is_invisible_to_xla(module_id, hloff_bin, request):
    """fmt's output parses in XLA and XLA prints it exactly as it prints the input."""
    _module_both_accept(module_id, hloff_bin, request)
    fmt = xla_oracle.tool_fmt(hloff_bin, module_id)
    _assert_same_for_xla(xla_oracle.xla_input(module_id),
                         xla_oracle.xla_parse(fmt.stdout.decode("utf-8")), module_id)


def _assert_same_for_xla(reference, after, what):
    """XLA prints `after` (its parse of fmt's output) as it prints `reference`."""
    assert after.error is None, (
        "XLA's parser rejects hlo-offload fmt's output of %s:\n%s" %
        (what, xla_oracle.short(after.error)))
    # Compared with != and pytest.fail: pytest's own diff of two long texts is quadratic.
    if after.canonical != reference.canonical:
        pytest.fail("XLA's canonical printing differs after fmt, at " +
                    _first_difference(reference.canonical, after.canonical))
    if after.full != reference.full:
        pytest.fail("XLA's full printing differs after fmt, at " +
                    _first_difference(reference.full, after.full))


@pytest.mark.parametrize("module_id", _fmt_params(known_bugs=False))
def test_xla_printed_module_round_trips(module_id, hloff_bin, request):
    """XLA's printing of the module, given to fmt: XLA reads fmt's output as it reads its own."""
    _module_both_accept(module_id, hloff_bin, request)
    printed = xla_oracle.xla_input(module_id).full
    reference = xla_oracle.xla_parse(printed)
    if reference.error is not None:
        pytest.skip("XLA cannot parse its own printing of the module: " +
                    xla_oracle.short(reference.error, 2).replace("\n", " "))
    result = xla_oracle.run_tool(hloff_bin, ("fmt",), printed.encode("utf-8"))
    assert result.returncode == 0, (
        "hlo-offload fmt rejects XLA's printing of %s:\n%s" %
        (module_id, xla_oracle.short(result.stderr)))
    _assert_same_for_xla(reference, xla_oracle.xla_parse(result.stdout.decode("utf-8")),
                         "XLA's printing of " + module_id)


def _check_output_parses(module_id, args, hloff_bin, request, what_exit_1):
    module = _module_both_accept(module_id, hloff_bin, request)
    result = xla_oracle.run_tool(hloff_bin, args, module.data)
    if result.returncode == 1:
        pytest.skip("exit 1, %s: %s" % (what_exit_1, xla_oracle.short(result.stderr, 1)))
    assert result.returncode == 0, (
        "hlo-offload %s exited %d on a module that fmt accepts:\n%s" %
        (" ".join(args), result.returncode, xla_oracle.short(result.stderr)))
    printed = result.stdout.decode("utf-8")
    assert printed.strip(), "hlo-offload %s printed nothing" % " ".join(args)
    parsed = xla_oracle.xla_parse(printed)
    assert parsed.error is None, (
        "XLA's parser rejects the output of hlo-offload %s on %s:\n%s" %
        (" ".join(args), module_id, xla_oracle.short(parsed.error)))


@pytest.mark.parametrize("module_id,options", _opt_params())
def test_opt_output_parses_in_xla(module_id, options, hloff_bin, request):
    _check_output_parses(module_id, ("opt",) + tuple(options), hloff_bin, request,
                         "an error found in the input, no module printed")


@pytest.mark.parametrize("module_id,options", _fix_params())
def test_fix_output_parses_in_xla(module_id, options, hloff_bin, request):
    _check_output_parses(module_id, ("fix",) + tuple(options), hloff_bin, request,
                         "could not fix")
