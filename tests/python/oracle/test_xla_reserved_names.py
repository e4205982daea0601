"""Names that XLA's lexer reserves keep their '%' through `hlo-offload fmt`.

XLA's lexer reads a bare word that is a primitive type name (except tuple and buffer) as a
type, and the words true, false, inf, nan, HloModule, ENTRY, ROOT, FileLocations, FileNames,
FunctionNames, StackFrames, maximal, replicated, manual, last_tile_dim_replicate, shard_as,
shard_like, unknown and unreduced as keywords (xla/hlo/parser/hlo_lexer.cc,
HloLexer::LexIdentifier); only after '%' is such a word a name (HloLexer::LexPercent). So
`HloModule %manual` parses in XLA and `HloModule manual` does not ('expects name'), and the
same for a computation named `%f32` or an instruction named `%true`. (An instruction may not
be named like a primitive type even with '%': XLA's parser refuses what
NameUniquer::GetSanitizedName would rename, 'illegal instruction name'.)

Each case is a module that XLA's parser accepts (asserted first, a run of jaxlib here), whose
`fmt` output must parse in XLA too and print as the input does: hlo-offload's printer keeps the
'%' of every reserved word (text/printer.cc, IsReservedWord). XLA's own printer does not (a run
of jaxlib 0.10.2 here): it prints the module name bare (`HloModule manual`) and, in
HloPrintOptions.short_parsable() (no '%', the form hlo-offload prints), instruction names too
(`true = f32[] parameter(0)`), and cannot parse either back; a computation named `%f32` it
renames `f32_` as it parses.
"""
import pytest

pytest.importorskip("jax", reason="XLA's parser, the oracle, comes with jaxlib"
                    " (pip install '.[jax]')")

import xla_oracle  # noqa: E402

KEYWORDS = ("true", "false", "inf", "nan", "HloModule", "ENTRY", "ROOT", "FileLocations",
            "FileNames", "FunctionNames", "StackFrames", "maximal", "replicated", "manual",
            "last_tile_dim_replicate", "shard_as", "shard_like", "unknown", "unreduced")
# XLA's primitive type names as its printer spells them (primitive_util), tuple and buffer
# left out (not reserved). s1/u1/s2/u2 are missing from jaxlib's PrimitiveType enum in 0.10.2
# but reserved by its parser (a run here).
PRIMITIVE_TYPES = ("pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4", "u8",
                   "u16", "u32", "u64", "f16", "f32", "bf16", "f64", "c64", "c128", "f8e5m2",
                   "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e3m4",
                   "f4e2m1fn", "f8e8m0fnu", "token", "opaque")
def _module(module_name="m", computation="f", instruction="x"):
    return ("HloModule %s\n\n"
            "%s {\n"
            "  %s = f32[] parameter(0)\n"
            "  ROOT r = f32[] negate(%s)\n"
            "}\n\n"
            "ENTRY main {\n"
            "  p = f32[] parameter(0)\n"
            "  ROOT c = f32[] call(p), to_apply=%s\n"
            "}\n" % (module_name, computation, instruction, instruction, computation))


def _params():
    params = []
    for word in KEYWORDS + PRIMITIVE_TYPES:
        places = ("module", "computation") + (("instruction",) if word in KEYWORDS else ())
        for place in places:
            params.append(pytest.param(word, place, id="%s-%s" % (place, word)))
    return params


def _text(word, place):
    return _module(**{{"module": "module_name"}.get(place, place): "%" + word})


@pytest.mark.parametrize("word,place", _params())
def test_word_is_reserved_in_xla(word, place):
    """The case itself is right: XLA's parser accepts the name with '%' and not without."""
    text = _text(word, place)
    with_percent = xla_oracle.xla_parse(text)
    assert with_percent.error is None, "XLA's parser rejects the input:\n" + with_percent.error
    bare = xla_oracle.xla_parse(text.replace("%" + word, word))
    assert bare.error is not None, "%r is not reserved in XLA: take it off the list" % word


@pytest.mark.parametrize("word,place", _params())
def test_reserved_word_name_survives_fmt(word, place, hloff_bin):
    """fmt's output of the module parses in XLA and prints as the input does."""
    text = _text(word, place)
    before = xla_oracle.xla_parse(text)
    result = xla_oracle.run_tool(hloff_bin, ("fmt",), text.encode())
    assert result.returncode == 0, result.stderr
    after = xla_oracle.xla_parse(result.stdout.decode())
    assert after.error is None, (
        "XLA's parser rejects fmt's output:\n%s\n%s" % (result.stdout.decode(),
                                                        xla_oracle.short(after.error)))
    assert after.full == before.full
