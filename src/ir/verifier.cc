// The IR verifier.
#include "ir/verifier.h"

#include "absl/strings/str_cat.h"
#include "ir/shape.h"

namespace hloff {
namespace {

// The operand count VerifyStructure demands of `opcode` alone; -1 when it
// demands none or more than a count.
int64_t FixedOperandCount(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs: case HloOpcode::kCeil: case HloOpcode::kFloor:
    case HloOpcode::kNegate: case HloOpcode::kNot: case HloOpcode::kSign:
    case HloOpcode::kExponential: case HloOpcode::kExponentialMinusOne:
    case HloOpcode::kLog: case HloOpcode::kLogPlusOne:
    case HloOpcode::kLogistic: case HloOpcode::kSqrt: case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt: case HloOpcode::kTanh: case HloOpcode::kSine:
    case HloOpcode::kCosine: case HloOpcode::kTan: case HloOpcode::kErf:
    case HloOpcode::kIsFinite: case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: case HloOpcode::kCountLeadingZeros:
    case HloOpcode::kPopcnt: case HloOpcode::kReal: case HloOpcode::kImag:
    case HloOpcode::kConvert: case HloOpcode::kBitcastConvert:
    case HloOpcode::kReducePrecision: case HloOpcode::kTranspose:
    case HloOpcode::kReverse: case HloOpcode::kAcos: case HloOpcode::kAcosh:
    case HloOpcode::kAsin: case HloOpcode::kAsinh: case HloOpcode::kAtanh:
    case HloOpcode::kCosh: case HloOpcode::kSinh:
    case HloOpcode::kCopy: case HloOpcode::kBitcast: case HloOpcode::kReshape:
    case HloOpcode::kBroadcast: case HloOpcode::kSlice:
      return 1;
    case HloOpcode::kAdd: case HloOpcode::kSubtract: case HloOpcode::kMultiply:
    case HloOpcode::kDivide: case HloOpcode::kMaximum: case HloOpcode::kMinimum:
    case HloOpcode::kPower: case HloOpcode::kRemainder: case HloOpcode::kAnd:
    case HloOpcode::kOr: case HloOpcode::kXor: case HloOpcode::kCompare:
    case HloOpcode::kAtan2: case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic: case HloOpcode::kShiftRightLogical:
    case HloOpcode::kComplex: case HloOpcode::kMulhi:
      return 2;
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      return 3;
    default:
      return -1;
  }
}

// True for the opcodes VerifyStructure checks beyond an operand count.
bool HasStructureRules(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kWhile:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kFusion:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
      return true;
    default:
      return false;
  }
}

// The structural rules of `instr` (VerifyInstruction's first part).
std::optional<VerifierError> VerifyStructure(const Instruction& instr) {
  auto fail = [&](std::string what) {
    return VerifierError{&instr, VerifierSite::kName,
                         absl::StrCat("'", instr.name(), "': ", what)};
  };
  auto need_operands = [&](int64_t n) -> std::optional<VerifierError> {
    if (instr.operand_count() == n) return std::nullopt;
    return VerifierError{
        &instr, VerifierSite::kOpcode,
        absl::StrCat(instr.opcode_spelling(), " expects ", n, " operand",
                     n == 1 ? "" : "s", ", got ", instr.operand_count())};
  };
  switch (instr.opcode()) {
    case HloOpcode::kWhile: {
      const Computation* body = instr.while_body();
      const Computation* cond = instr.while_condition();
      if (body == nullptr || cond == nullptr) {
        return fail("while needs condition= and body=");
      }
      if (auto e = need_operands(1)) return e;
      if (body->num_parameters() != 1 || cond->num_parameters() != 1) {
        return fail("while body and condition must take exactly one parameter");
      }
      return std::nullopt;
    }
    case HloOpcode::kCall: {
      const Computation* callee = instr.CalledComputation("to_apply");
      if (callee == nullptr) return fail("call needs to_apply=");
      return need_operands(callee->num_parameters());
    }
    case HloOpcode::kConditional: {
      int64_t branches = static_cast<int64_t>(instr.called_computations().size());
      if (branches == 0) return fail("conditional needs branch computations");
      if (auto e = need_operands(branches + 1)) return e;
      for (const Computation* branch : instr.called_computations()) {
        if (branch->num_parameters() != 1) {
          return fail(absl::StrCat("branch computation '", branch->name(),
                                   "' must take exactly one parameter"));
        }
      }
      return std::nullopt;
    }
    case HloOpcode::kFusion:
      if (instr.called_computations().empty()) return fail("fusion needs calls=");
      return std::nullopt;
    case HloOpcode::kAsyncStart: {
      const auto& called = instr.called_computations();
      if (!called.empty() && instr.operand_count() != called[0]->num_parameters()) {
        return fail(absl::StrCat("async-start has ", instr.operand_count(),
                                 " operands but its computation '",
                                 called[0]->name(), "' has ",
                                 called[0]->num_parameters(), " parameters"));
      }
      return std::nullopt;
    }
    case HloOpcode::kGetTupleElement: {
      if (auto e = need_operands(1)) return e;
      const Shape& tuple = instr.operand(0)->shape();
      int64_t index = instr.tuple_index();
      if (!tuple.IsTuple() ||
          index >= static_cast<int64_t>(tuple.tuple_shapes.size())) {
        return fail(absl::StrCat("index ", index,
                                 " is out of range for operand shape ",
                                 ShapeToString(tuple)));
      }
      return std::nullopt;
    }
    case HloOpcode::kDynamicSlice:
      if (instr.operand_count() < 1) return fail("dynamic-slice needs an operand");
      return std::nullopt;
    case HloOpcode::kDynamicUpdateSlice:
      if (instr.operand_count() < 2) {
        return fail("dynamic-update-slice needs a buffer and an update");
      }
      return std::nullopt;
    default: {
      int64_t fixed = FixedOperandCount(instr.opcode());
      if (fixed >= 0) return need_operands(fixed);
      return std::nullopt;
    }
  }
}

}  // namespace

std::optional<VerifierError> VerifyInstruction(const Instruction& instr) {
  // Most instructions keep every structural rule: the full check runs only
  // for the opcodes with rules beyond an operand count, or a count that is
  // off (this runs on every instruction after every pass).
  int64_t fixed = FixedOperandCount(instr.opcode());
  if (HasStructureRules(instr.opcode()) ||
      (fixed >= 0 && instr.operand_count() != fixed)) {
    if (auto e = VerifyStructure(instr)) return e;
  }
  std::string mismatch = ForwardedShapeMismatch(instr);
  if (mismatch.empty()) return std::nullopt;
  return VerifierError{&instr, VerifierSite::kName,
                       absl::StrCat("'", instr.name(), "': ", mismatch)};
}

absl::Status VerifyModule(const Module& module, VerifierError* error) {
  auto failed = [&](VerifierError e) {
    absl::Status status = absl::InternalError(e.message);
    if (error != nullptr) *error = std::move(e);
    return status;
  };
  if (module.entry() == nullptr) {
    return failed({nullptr, VerifierSite::kName, "the module has no entry computation"});
  }
  const Instruction* root = module.entry()->root();
  const Shape& declared = module.entry_computation_layout().result;
  if (!shape_util::Compatible(declared, root->shape())) {
    return failed({root, VerifierSite::kName,
                   absl::StrCat("the entry root '", root->name(), "' has shape ",
                                ShapeToString(root->shape()),
                                " but entry_computation_layout says ",
                                ShapeToString(declared))});
  }
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->IsDead()) continue;
      if (auto e = VerifyInstruction(*instr)) return failed(*std::move(e));
    }
  }
  return absl::OkStatus();
}

std::string ForwardedShapeMismatch(const Instruction& instr) {
  // `what` names the receiving side; it is only built for a mismatch (this
  // runs on every instruction after every pass).
  auto differ = [](const Shape& declared, const Shape& forwarded,
                   auto&& what) -> std::string {
    if (&declared == &forwarded || shape_util::Compatible(declared, forwarded)) {
      return "";
    }
    return absl::StrCat(what(), " has shape ", ShapeToString(declared, /*print_layout=*/false),
                        " but ", ShapeToString(forwarded, /*print_layout=*/false),
                        " is passed to it");
  };
  auto text = [](absl::string_view t) { return [t] { return t; }; };
  const Shape& shape = instr.shape();
  const auto& operands = instr.operands();
  switch (instr.opcode()) {
    case HloOpcode::kGetTupleElement: {
      int64_t index = instr.tuple_index();
      if (operands.size() != 1 || !operands[0]->shape().IsTuple() || index < 0 ||
          index >= static_cast<int64_t>(operands[0]->shape().tuple_shapes.size())) {
        return absl::StrCat("get-tuple-element of element ", index,
                            " of a value without it");
      }
      return differ(shape, operands[0]->shape().tuple_shapes[index],
                    [&] { return absl::StrCat("get-tuple-element of element ", index); });
    }
    case HloOpcode::kTuple: {
      if (!shape.IsTuple() || shape.tuple_shapes.size() != operands.size()) {
        return absl::StrCat("tuple of ", operands.size(), " operands has shape ",
                            ShapeToString(shape, /*print_layout=*/false));
      }
      for (size_t i = 0; i < operands.size(); ++i) {
        std::string m = differ(shape.tuple_shapes[i], operands[i]->shape(),
                               [&] { return absl::StrCat("tuple element ", i); });
        if (!m.empty()) return m;
      }
      return "";
    }
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDynamicUpdateSlice:
      if (operands.empty()) return "";
      return differ(shape, operands[0]->shape(), text(instr.opcode_spelling()));
    case HloOpcode::kWhile: {
      const Computation* body = instr.while_body();
      const Computation* cond = instr.while_condition();
      if (operands.size() != 1 || body == nullptr || cond == nullptr ||
          body->num_parameters() != 1 || cond->num_parameters() != 1) {
        return "while without one operand, or a body and a condition of one "
               "parameter each";
      }
      std::string m = differ(shape, operands[0]->shape(), text("while"));
      if (m.empty()) m = differ(body->parameter(0)->shape(), shape, text("the body parameter"));
      if (m.empty()) {
        m = differ(cond->parameter(0)->shape(), shape, text("the condition parameter"));
      }
      if (m.empty()) m = differ(shape, body->root()->shape(), text("while (from its body root)"));
      return m;
    }
    case HloOpcode::kCall: {
      const Computation* callee = instr.CalledComputation("to_apply");
      if (callee == nullptr ||
          callee->num_parameters() != static_cast<int64_t>(operands.size())) {
        return "call whose operands do not match its callee's parameters";
      }
      for (size_t i = 0; i < operands.size(); ++i) {
        std::string m = differ(callee->parameter(i)->shape(), operands[i]->shape(),
                               [&] {
                                 return absl::StrCat("parameter ", i, " of '",
                                                     callee->name(), "'");
                               });
        if (!m.empty()) return m;
      }
      return differ(shape, callee->root()->shape(),
                    text("call (from its callee's root)"));
    }
    case HloOpcode::kConditional: {
      const auto& branches = instr.called_computations();
      if (operands.size() != branches.size() + 1) {
        return "conditional whose operands do not match its branches";
      }
      for (size_t b = 0; b < branches.size(); ++b) {
        if (branches[b]->num_parameters() != 1) {
          return absl::StrCat("branch '", branches[b]->name(),
                              "' without exactly one parameter");
        }
        std::string m = differ(branches[b]->parameter(0)->shape(),
                               operands[b + 1]->shape(),
                               [&] {
                                 return absl::StrCat("the parameter of branch '",
                                                     branches[b]->name(), "'");
                               });
        if (m.empty()) {
          m = differ(shape, branches[b]->root()->shape(),
                     [&] {
                       return absl::StrCat("conditional (from the root of '",
                                           branches[b]->name(), "')");
                     });
        }
        if (!m.empty()) return m;
      }
      return "";
    }
    default:
      return "";
  }
}

}  // namespace hloff
