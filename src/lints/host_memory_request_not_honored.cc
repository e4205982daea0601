// HO3004 HostMemoryRequestNotHonored (docs/errors/HO3004.md).
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/partitions.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Follows single-user bitcast/copy/bitcast-reshape hops down from `instr`;
// returns the last hop (or `instr`).
const Instruction* SkipHopsDown(const Instruction* instr) {
  while (instr->user_count() == 1) {
    const Instruction* user = instr->users()[0];
    bool hop = user->opcode() == HloOpcode::kBitcast ||
               (user->opcode() == HloOpcode::kReshape &&
                shape_util::ReshapeIsBitcast(instr->shape(), user->shape()));
    if (!hop) break;
    instr = user;
  }
  return instr;
}

// Whether `instr` (an annotation in the entry) is only returned: each user,
// through reshapes, bitcasts, copies and sharding custom-calls, is the entry
// root, or unused (JAX's lowering leaves dead reshapes beside such outputs). JAX wraps every output of a jit whose out_shardings name memory kinds
// in an annotate_device_placement of its kind, "device" included
// (jax/_src/interpreters/mlir.py, lower_jaxpr_to_fun, wrap_with_memory_kind),
// so an entry parameter returned unchanged (MaxText's RNG state) is annotated
// "device" right at entry without any request for host memory.
bool OnlyReturned(const Instruction* instr) {
  std::vector<const Instruction*> stack = {instr};
  int visited = 0;
  while (!stack.empty()) {
    const Instruction* value = stack.back();
    stack.pop_back();
    if (value->IsRoot() || (value != instr && value->user_count() == 0)) continue;
    if (value->user_count() == 0 || ++visited > 64) return false;
    for (const Instruction* user : value->users()) {
      HloOpcode op = user->opcode();
      bool passes = op == HloOpcode::kReshape || op == HloOpcode::kBitcast ||
                    op == HloOpcode::kCopy ||
                    (op == HloOpcode::kCustomCall &&
                     IsRemovedShardingTarget(user->custom_call_target()));
      if (passes) {
        stack.push_back(user);
      } else if (!(op == HloOpcode::kTuple && user->IsRoot())) {
        return false;
      }
    }
  }
  return true;
}

// Detects a request for host memory that has no effect or no longer matches
// the module. In the input: an annotate_device_placement with a memory kind
// it does not know (or none), a move to host nothing uses, one that reaches
// the entry root only through bitcasts, a root placed in host memory whose
// result the entry layout declares in device memory, a move to device of an
// entry parameter that is in device memory already. After the pipeline: host
// memory asked for (layout or annotation) and no tensor in host memory. XLA
// says nothing in any of these cases: the conversion
// (xla/hlo/transforms/convert_memory_placement_to_internal_annotations.cc)
// leaves an unknown kind alone, HostOffloader
// (xla/hlo/transforms/host_offloader.cc) deletes an annotation whose value
// has no non-bitcast user and returns a host copy for a single device
// result without checking the layout.
class HostMemoryRequestNotHonored : public LintChecker {
 public:
  // In the input, annotations (custom calls); after the pipeline, every
  // instruction, for its memory space.
  bool Visits(LintPhase phase, HloOpcode opcode) const override {
    return phase == LintPhase::kOutput || opcode == HloOpcode::kCustomCall;
  }

  void BeforeModule(LintContext& context) override {
    if (context.phase() != LintPhase::kInput) return;
    LintInputFacts& facts = context.mutable_facts();
    const EntryComputationLayout& layout = context.layout();
    for (size_t i = 0; i < layout.parameters.size(); ++i) {
      if (HasHostLeaf(layout.parameters[i]) && !facts.asks_for_host_memory) {
        facts.asks_for_host_memory = true;
        facts.first_request =
            absl::StrCat("entry parameter ", i, " (S(5) in entry_computation_layout)");
      }
    }
    if (HasHostLeaf(layout.result) && !facts.asks_for_host_memory) {
      facts.asks_for_host_memory = true;
      facts.first_request = "the entry result (S(5) in entry_computation_layout)";
      ShapeIndex at;
      shape_util::ForEachSubshape(
          layout.result,
          [&](const Shape& shape, const ShapeIndex& index) {
            if (!facts.first_request_output && !shape.IsTuple() &&
                HasHostLeaf(shape)) {
              facts.first_request_output = index;
            }
          },
          at);
    }
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (context.phase() == LintPhase::kOutput) {
      any_host_ = any_host_ || HasHostLeaf(instr->shape());
      return;
    }
    const bool to_host = IsToHostAnnotation(instr);
    LintInputFacts& facts = context.mutable_facts();
    if (to_host && !facts.asks_for_host_memory) {
      facts.asks_for_host_memory = true;
      facts.first_request = std::string(instr->input_name());
      facts.first_request_loc = instr->loc();
    }
    // Annotations that a later step drops.
    if (instr->IsCustomCall(kDevicePlacementTarget)) UnknownKind(instr, context);
    if (to_host) ToHost(instr, context);
    if (IsToDeviceAnnotation(instr) && instr->operand_count() == 1) {
      ToDevice(instr, context);
    }
  }

  void AfterModule(LintContext& context) override {
    if (context.phase() != LintPhase::kOutput) return;
    const LintInputFacts& facts = context.facts();
    std::vector<Diagnostic>& out = context.out();
    // Unless a lint of the input already said why this request has no effect.
    bool explained = std::any_of(out.begin(), out.end(), [&](const Diagnostic& d) {
      return d.code == DiagCode::kHO3004 && d.instruction == facts.first_request;
    });
    if (!facts.asks_for_host_memory || any_host_ || explained ||
        facts.already_offloaded) {
      return;
    }
    Diagnostic d;
    d.code = DiagCode::kHO3004;
    d.severity = Severity::kWarning;
    d.loc = facts.first_request_loc.known() ? facts.first_request_loc
                                            : context.module().entry()->root()->loc();
    d.instruction = facts.first_request;
    d.about_output = facts.first_request_output;
    d.message = absl::StrCat("host memory is asked for (", facts.first_request,
                             ") but no tensor ends up in host memory: the "
                             "offload has no effect");
    out.push_back(std::move(d));
  }

 private:
  // An annotate_device_placement whose memory kind the conversion does not
  // know, or that has none.
  static void UnknownKind(const Instruction* instr, LintContext& context) {
    auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
    static const char* const kKnown[] = {"pinned_host", "unpinned_host",
                                         "device", "vmem", "pinned_device"};
    bool known = false;
    for (const char* k : kKnown) known |= kind && *kind == k;
    if (known) return;
    context.out().push_back(MakeDiagnostic(
        DiagCode::kHO3004,
        kind ? absl::StrCat("annotate_device_placement \"", instr->input_name(),
                            "\" has the unknown memory kind \"", *kind,
                            "\"; it is left in the module and no "
                            "offloading happens for it")
             : absl::StrCat("annotate_device_placement \"", instr->input_name(),
                            "\" has no _xla_buffer_placement frontend "
                            "attribute; it is left in the module and no "
                            "offloading happens for it"),
        instr));
  }

  // A move to host that is dropped, or that is the entry root against a
  // device result layout.
  static void ToHost(const Instruction* instr, LintContext& context) {
    const Module& module = context.module();
    const EntryComputationLayout& layout = context.layout();
    std::vector<Diagnostic>& out = context.out();
    if (instr->users().empty() && !instr->IsRoot()) {
      out.push_back(MakeDiagnostic(DiagCode::kHO3004,
                                   absl::StrCat("\"", instr->input_name(),
                                                "\" moves a value to host but nothing "
                                                "uses it; it is dropped without "
                                                "effect"),
                                   instr));
    } else if (!instr->IsRoot()) {
      const Instruction* last = SkipHopsDown(instr);
      if (last != instr && last->IsRoot() && context.in_entry() &&
          instr->user_count() == 1) {
        Diagnostic d = MakeDiagnostic(
            DiagCode::kHO3004,
            absl::StrCat("\"", instr->input_name(),
                         "\" reaches the entry root only through bitcasts, "
                         "so XLA finds nothing to offload: the annotation "
                         "is deleted, no host copy is made and the output "
                         "layout is not checked"),
            instr);
        d.about_output = ShapeIndex{};  // the entry result, whole
        out.push_back(std::move(d));
      }
    }
    // XLA V4 declares such a root in host memory itself unless the layout
    // is customized (--fix-entry-layout-unless-customized).
    bool layout_fixed_by_xla = context.options().fix_entry_layout_unless_customized &&
                               layout.result.IsArray() &&
                               !layout.result.layout.HasCustomization();
    if (!instr->IsRoot() || !context.in_entry() || HasHostLeaf(layout.result) ||
        layout_fixed_by_xla) {
      return;
    }
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3004,
        absl::StrCat("the root value \"", instr->input_name(),
                     "\" is placed in host memory", SourceSuffix(module, instr),
                     " but entry_computation_layout declares the result "
                     "in device memory; XLA returns a host copy without "
                     "checking the layout (a declared host output is "
                     "missing from the layout)"),
        instr);
    d.about_output = ShapeIndex{};  // the root is the entry result
    d.fixes.push_back(Fix{"host-output",
                          "restore memory_kind=\"pinned_host\" on the "
                          "output (out_shardings), so that the layout "
                          "says S(5)"});
    out.push_back(std::move(d));
  }

  // A move to device of an entry parameter whose layout is device memory
  // (neither pinned nor unpinned host memory), unless the parameter is only
  // returned (JAX's annotation of an output's memory kind: OnlyReturned).
  static void ToDevice(const Instruction* instr, LintContext& context) {
    const Instruction* operand = instr->operand(0);
    if (operand->opcode() != HloOpcode::kParameter || !context.in_entry() ||
        OnlyReturned(instr)) {
      return;
    }
    const Shape& param = context.layout().parameters[operand->parameter_number()];
    if (HasHostLeaf(param) ||
        shape_util::AnyArrayLeafInMemorySpace(param, kUnpinnedHostMemorySpace)) {
      return;
    }
    context.out().push_back(MakeDiagnostic(
        DiagCode::kHO3004,
        absl::StrCat("entry parameter \"", operand->input_name(),
                     "\" is moved to device right at entry",
                     SourceSuffix(context.module(), instr),
                     " but its layout is already device memory; if it "
                     "was meant to be a host input, give it "
                     "memory_kind=\"pinned_host\" in in_shardings"),
        instr));
  }

  bool any_host_ = false;  // kOutput: some instruction has a host leaf
};

}  // namespace

std::unique_ptr<LintChecker> NewHostMemoryRequestNotHonored() {
  return std::make_unique<HostMemoryRequestNotHonored>();
}

}  // namespace hloff
