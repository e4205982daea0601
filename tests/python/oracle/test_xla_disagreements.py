"""Which modules XLA's parser and hlo-offload disagree on, each with its reason.

For every module of the corpus (see xla_oracle.py): XLA's parser (jaxlib's
`hlo_module_from_text`, a run of jaxlib 0.10.2 here) and `hlo-offload fmt` either both accept
it or both reject it, or the module is in DISAGREEMENTS with the side that rejects it and why.
Most lit inputs that both reject are deliberately invalid (the error tests). The list is
exact: a listed module that both now accept or reject, or that no longer exists, fails, and so
does a new disagreement.

The reasons were read in XLA's source (the mirror of openxla/xla at 2026-07-26):
xla/hlo/parser/hlo_lexer.cc (HloLexer::LexIdentifier, HloLexer::LexPercent),
xla/hlo/parser/hlo_parser.cc (HloParserImpl::ParseName, ParseInstruction's 'illegal
instruction name'), xla/service/name_uniquer.cc (NameUniquer::GetSanitizedName) and
xla/service/hlo_verifier.cc; and jaxlib's binding, xla/python/hlo.cc, which parses with
ParseAndReturnUnverifiedModule: the parser without HloVerifier. The shared grammar
(spec/hlo-text-grammar.md, the lexer's NAME, KEYWORD and PRIMITIVE_TYPE) says the same of
names as XLA's lexer: a name after '%' starts with a letter or '_', and a reserved word is
never a bare name.
"""
import pytest

pytest.importorskip("jax", reason="XLA's parser, the oracle, comes with jaxlib"
                    " (pip install '.[jax]')")

import xla_oracle  # noqa: E402

# We accept, XLA's parser rejects.
TYPE_NAMED_INSTRUCTION = (
    "an instruction is named like a primitive type (s1, u1, s2): XLA's lexer reads such a "
    "word as a type, not a name (HloLexer::LexIdentifier: 'Primitive type strings are reserved "
    "words'), so XLA's parser says 'expects name'; hlo-offload takes it as a name")
KEYWORD_NAMED_MODULE = (
    "the module is named 'manual', a keyword of XLA's lexer (the sharding keyword, "
    "kw_manual), so `HloModule manual` is 'expects name' in XLA; `HloModule %manual` would "
    "parse. hlo-offload takes the bare word as a name")
PERCENT_DIGIT_OR_DOT = (
    "names '%.20' and '%0': after '%' XLA's lexer wants a letter or '_' (HloLexer::LexPercent), "
    "so '%.20 {' is 'expects name'; hlo-offload accepts any name character after '%' (the "
    "file is a fuzzer finding about hlo-offload's own round trip)")
COMPACT_GTE_NEWER_XLA = (
    "compact get-tuple-element operands (`%p#1#0`): the oracle, jaxlib 0.10.2's parser, "
    "predates them ('expects ... but sees #'); newer XLA's parser reads them "
    "(HloParserImpl::ParseOperands, the mirror at 2026-07-26) and JAX 0.11.2's XLA prints "
    "them in its dumps (tests/xla-ref/jax-0.11.2-cuda13-h200, a real H200)")
# XLA's parser accepts, we reject: checks that XLA makes in HloVerifier, not in its parser.
ENTRY_LAYOUT_PARAMETER_COUNT = (
    "entry_computation_layout has another number of parameters than the entry computation: "
    "XLA's parser keeps the header's layout unchecked; HloVerifier rejects it "
    "(hlo_verifier.cc, VerifyEntryComputationLayout: 'Number of parameters in entry "
    "computation layout (%d) must be same as number of parameters of entry computation')")
GTE_INDEX_OUT_OF_RANGE = (
    "get-tuple-element index 7 of a 2-tuple: XLA's parser takes the written shape; HloVerifier "
    "rejects it (ShapeVerifier::HandleGetTupleElement, ShapeInference::"
    "InferGetTupleElementShape: 'attempt to index out of tuple bounds')")
GTE_SHAPE_MISMATCH = (
    "get-tuple-element written with another shape than the tuple element's: XLA's parser "
    "takes the written shape; HloVerifier rejects it (ShapeVerifier::HandleGetTupleElement "
    "compares it with ShapeInference::InferGetTupleElementShape)")
LAYOUT_NOT_A_PERMUTATION = (
    "layout {0,0}: XLA's parser takes any minor_to_major of the right length; HloVerifier "
    "rejects it in the entry computation layout, here taken from the parameter "
    "(VerifyEntryComputationLayout, ShapeUtil::ValidateShapeWithOptionalLayout, "
    "LayoutUtil::ValidateLayoutInShape: 'layout minor_to_major field has duplicate values'), "
    "and so does jaxlib's HLO-to-MLIR import of this module (xla_computation_to_mlir_module, "
    "a run here)")

# module id -> (the side that rejects it, why).
DISAGREEMENTS: dict = {
    "cases/xla/053-host-call-feeds-host-call.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "cases/xla/055-mth-in-loop-shared-broadcast.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "cases/xla/062-conditional-branches-offload.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "cases/xla/079-legalize-copy-through-opt-barrier.hlo": ("xla-rejects",
                                                             TYPE_NAMED_INSTRUCTION),
    "cases/xla/080-legalize-xpose-copy-on-param-streaming.hlo": ("xla-rejects",
                                                                  TYPE_NAMED_INSTRUCTION),
    "cases/xla/092-convert-unpinned-host.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "lit/fuzz-regressions/move-to-host-shape-mismatch-legalize.hlo": ("xla-rejects",
                                                                       TYPE_NAMED_INSTRUCTION),
    "lit/report/scan-loop.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "lit/xla/hlo-cse-as-xla.hlo#0": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "lit/xla/s021-opt-barrier-elaborate.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "lit/xla/s053-host-call-feeds-host-call.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "lit/xla/s080-xpose-copy-on-streamed-param.hlo": ("xla-rejects", TYPE_NAMED_INSTRUCTION),
    "lit/xla/s083-copy-between-loops-moves-into-consumer.hlo": ("xla-rejects",
                                                                 TYPE_NAMED_INSTRUCTION),
    "lit/lints/ho3013-offload-in-manual-sharding-region.hlo#0": ("xla-rejects",
                                                                  KEYWORD_NAMED_MODULE),
    "lit/fuzz-regressions/percent-names-round-trip.hlo": ("xla-rejects", PERCENT_DIGIT_OR_DOT),
    "lit/errors/entry-layout-parameter-count-fewer.hlo": ("we-reject",
                                                          ENTRY_LAYOUT_PARAMETER_COUNT),
    "lit/errors/entry-layout-parameter-count.hlo": ("we-reject", ENTRY_LAYOUT_PARAMETER_COUNT),
    "lit/errors/gte-index-out-of-range.hlo": ("we-reject", GTE_INDEX_OUT_OF_RANGE),
    "lit/fuzz-regressions/gte-rank-mismatch-layout.hlo": ("we-reject", GTE_SHAPE_MISMATCH),
    "lit/fuzz-regressions/move-to-device-shape-mismatch.hlo#0": ("we-reject",
                                                                  GTE_SHAPE_MISMATCH),
    "lit/errors/shape-layout-permutation.hlo": ("we-reject", LAYOUT_NOT_A_PERMUTATION),
}
# The oracle is the installed jaxlib's parser: what it accepts depends on its version.
if not xla_oracle.reads_compact_gte():
    DISAGREEMENTS["lit/printer/compact-gte.hlo"] = ("xla-rejects", COMPACT_GTE_NEWER_XLA)
    # JAX 0.12.0.1's XLA dumps (before_optimizations) and the partition step's output with
    # jaxlib 0.12.0.1 print compact get-tuple-elements too.
    for _path in sorted((xla_oracle.REPO / "tests" / "lit" / "backend" / "Inputs" /
                         "tpu-transfers").glob("*.hlo")):
        DISAGREEMENTS["lit/backend/Inputs/tpu-transfers/" + _path.name] = (
            "xla-rejects", COMPACT_GTE_NEWER_XLA)

# Modules that XLA's Python parser cannot be given: hlo_module_from_text takes a str, and
# their bytes are not UTF-8 (the C++ parser would read them as bytes).
NOT_UTF8 = {
    "lit/fuzz-regressions/non-utf8-json.hlo":
        "a metadata string holds byte 0xFF on purpose (the JSON output's U+FFFD test)",
}


def _params():
    params = [pytest.param(m.id, id=m.id) for m in xla_oracle.all_modules()]
    if not xla_oracle.shared_modules():
        params.append(pytest.param(None, id="shared-corpus"))
    return params


@pytest.mark.parametrize("module_id", _params())
def test_xla_and_we_accept_the_same(module_id, hloff_bin, request):
    """XLA's parser and hlo-offload both accept or both reject the module, or it is listed."""
    module = xla_oracle.module_or_skip(module_id, request)
    if module.text is None:
        assert module_id in NOT_UTF8, (
            "%s is not UTF-8, so XLA's parser cannot be given it: add it to NOT_UTF8 with "
            "the reason" % module_id)
        pytest.skip("not UTF-8: " + NOT_UTF8[module_id])
    assert module_id not in NOT_UTF8, module_id + " is UTF-8 now: remove it from NOT_UTF8"
    side = xla_oracle.disagreement(hloff_bin, module_id)
    xla_error = xla_oracle.xla_input(module_id).error
    our_error = xla_oracle.tool_fmt(hloff_bin, module_id).stderr
    if module_id in DISAGREEMENTS:
        listed, reason = DISAGREEMENTS[module_id]
        assert side == listed, (
            "%s is listed as %s (%s) but now %s; XLA: %s; hlo-offload: %s" %
            (module_id, listed, reason, side or "both agree", xla_oracle.short(xla_error or "ok"),
             xla_oracle.short(our_error or "ok")))
    else:
        assert side is None, (
            "%s: %s. XLA's parser says:\n%s\nhlo-offload fmt says:\n%s" %
            (module_id, "XLA's parser rejects what we accept" if side == "xla-rejects"
             else "we reject what XLA's parser accepts",
             xla_oracle.short(xla_error or "ok"), xla_oracle.short(our_error or "ok")))


def test_disagreement_list_is_exact(hloff_bin):
    """DISAGREEMENTS and NOT_UTF8 are exactly the modules that disagree (or that XLA cannot be
    given), with the listed side: no stale entry, none missing."""
    modules = xla_oracle.all_modules()
    present = {m.id for m in modules}
    have_shared = bool(xla_oracle.shared_modules())

    def expected(listing):
        return {k: v for k, v in listing.items()
                if have_shared or k.startswith("lit/")}

    missing = sorted(set(expected(DISAGREEMENTS)) - present)
    missing += sorted(set(expected(NOT_UTF8)) - present)
    assert not missing, "listed modules that do not exist: %s" % missing
    observed = {}
    not_utf8 = set()
    for module in modules:
        if module.text is None:
            not_utf8.add(module.id)
            continue
        side = xla_oracle.disagreement(hloff_bin, module.id)
        if side is not None:
            observed[module.id] = side
    assert not_utf8 == set(expected(NOT_UTF8))
    listed = {k: side for k, (side, _) in expected(DISAGREEMENTS).items()}
    assert observed == listed, (
        "new: %s; gone or changed: %s" %
        (sorted(set(observed.items()) - set(listed.items())),
         sorted(set(listed.items()) - set(observed.items()))))
