// Helpers of the report's analyses (report_util.h).
#include "report/report_util.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"

namespace hloff::report_util {

std::string ShortSource(const ProgramSource& source) {
  if (source.file.empty()) return "";
  std::string text = source.file.substr(source.file.rfind('/') + 1);
  if (source.line > 0) absl::StrAppend(&text, ":", source.line);
  return text;
}

std::string InputName(const Instruction* instr) {
  absl::string_view origin = instr->origin_name();
  return std::string(origin.substr(0, origin.find(' ')));
}

InstructionRef Ref(const Instruction* instr) {
  return InstructionRef{InputName(instr), std::string(instr->input_computation()),
                        instr->loc()};
}

ProgramSource SourceOf(const Module& module, const Instruction* instr) {
  ProgramSource source;
  const OpMetadata& metadata = instr->metadata();
  source.op_name = metadata.op_name;
  if (auto position = module.ResolveSource(metadata)) {
    source.file = position->file;
    source.line = position->line;
  }
  return source;
}

absl::string_view OpNameOp(absl::string_view op_name) {
  size_t slash = op_name.rfind('/');
  return slash == absl::string_view::npos ? op_name : op_name.substr(slash + 1);
}

namespace {

// A component of an op_name that JAX writes on its own, not the user.
bool IsJaxComponent(absl::string_view part) {
  if (part.empty() || part.find('(') != absl::string_view::npos) return true;
  if (absl::StartsWith(part, "branch_")) return true;
  static constexpr absl::string_view kJax[] = {
      "body",          "checkpoint",   "closed_call",
      "cond",          "core_call",    "custom_jvp_call",
      "custom_vjp_call", "custom_vjp_call_jaxpr",
      // JAX 0.12's call primitive around a checkpointed body
      // (jax/_src/lax/eval_jaxpr.py, register_call_primitive_rules(eval_jaxpr_p,
      // name="eval_jaxpr")): `.../while/body/eval_jaxpr/device_put`.
      "eval_jaxpr",    "jit",
      "jvp",           "main",         "pjit",
      "remat",         "remat2",       "rematted_computation",
      "scan",          "shard_map",    "transpose",
      "vmap",          "while",        "xla_call"};
  for (absl::string_view word : kJax) {
    if (part == word) return true;
  }
  return false;
}

}  // namespace

namespace {

// Splits `path` on the '/' that are outside parentheses.
std::vector<absl::string_view> SplitTopLevel(absl::string_view path) {
  std::vector<absl::string_view> parts;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '(') ++depth;
    if (path[i] == ')' && depth > 0) --depth;
    if (path[i] == '/' && depth == 0) {
      parts.push_back(path.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  parts.push_back(path.substr(begin));
  return parts;
}

// Appends the user's scopes among `components`: a transformation wraps the
// name stack it applies to (`jvp(attn_out)`, `transpose(jvp(block/mlp))`),
// which is read inside; a jitted function (`jit(step)`, `pjit(f)`) is
// JAX's; the rest is IsJaxComponent.
void AppendUserScopes(absl::string_view path, int depth,
                      std::vector<absl::string_view>& out) {
  if (depth > 16) return;
  for (absl::string_view part : SplitTopLevel(path)) {
    size_t open = part.find('(');
    if (open != absl::string_view::npos && absl::EndsWith(part, ")")) {
      absl::string_view head = part.substr(0, open);
      if (head == "jit" || head == "pjit" || head == "xla_call") continue;
      AppendUserScopes(part.substr(open + 1, part.size() - open - 2), depth + 1, out);
      continue;
    }
    if (!IsJaxComponent(part)) out.push_back(part);
  }
}

}  // namespace

absl::string_view OpNameScope(absl::string_view op_name) {
  size_t slash = op_name.rfind('/');
  if (slash == absl::string_view::npos) return "";
  std::vector<absl::string_view> scopes;
  AppendUserScopes(op_name.substr(0, slash), 0, scopes);
  return scopes.empty() ? absl::string_view() : scopes.back();
}

const Instruction* ValueProducer(const Instruction* instr) {
  constexpr int kMaxSteps = 64;
  for (int step = 0; step < kMaxSteps && instr != nullptr; ++step) {
    switch (instr->opcode()) {
      case HloOpcode::kBitcast:
      case HloOpcode::kCopy:
      case HloOpcode::kReshape:
        if (instr->operand_count() != 1) return instr;
        instr = instr->operand(0);
        continue;
      case HloOpcode::kGetTupleElement: {
        const Instruction* tuple = instr->operand(0);
        const int64_t index = instr->tuple_index();
        if (tuple->opcode() == HloOpcode::kTuple && index < tuple->operand_count()) {
          instr = tuple->operand(index);
          continue;
        }
        if (tuple->opcode() == HloOpcode::kCall &&
            !tuple->called_computations().empty()) {
          const Instruction* root = tuple->called_computations()[0]->root();
          if (root != nullptr && root->opcode() == HloOpcode::kTuple &&
              index < root->operand_count()) {
            instr = root->operand(index);
            continue;
          }
        }
        return instr;
      }
      default:
        return instr;
    }
  }
  return instr;
}

bool AnyLeafIsHost(const Shape& shape) {
  return shape_util::AnyArrayLeafInMemorySpace(shape, kHostMemorySpace);
}

void AppendArrayLeaves(const Shape& shape, const ShapeIndex& index,
                       std::vector<ShapeIndex>& out) {
  const Shape* sub = shape_util::TryGetSubshape(shape, index);
  if (sub == nullptr) return;
  ShapeIndex scratch;
  shape_util::ForEachSubshape(
      *sub,
      [&](const Shape& leaf, const ShapeIndex& rest) {
        if (!leaf.IsArray()) return;
        ShapeIndex full = index;
        full.insert(full.end(), rest.begin(), rest.end());
        out.push_back(std::move(full));
      },
      scratch);
}

int64_t BytesAt(const Shape& shape, const ShapeIndex& index) {
  const Shape* sub = shape_util::TryGetSubshape(shape, index);
  return sub == nullptr ? 0 : shape_util::ByteSizeOf(*sub);
}

std::string ShapeAt(const Shape& shape, const ShapeIndex& index) {
  const Shape* sub = shape_util::TryGetSubshape(shape, index);
  return sub == nullptr ? std::string() : ShapeToString(*sub);
}

absl::flat_hash_set<const Computation*> NestedComputations(
    const Module& module) {
  absl::flat_hash_set<const Computation*> nested;
  std::vector<const Computation*> stack;
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->IsDead()) continue;
      if (instr->opcode() != HloOpcode::kFusion && !ComputeTypeIsHost(instr.get())) {
        continue;
      }
      for (const Computation* callee : instr->called_computations()) {
        if (nested.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  while (!stack.empty()) {
    const Computation* comp = stack.back();
    stack.pop_back();
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->IsDead()) continue;
      for (const Computation* callee : instr->called_computations()) {
        if (nested.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  return nested;
}

std::string ShortShape(const Shape& shape) {
  std::string text = ShapeToString(shape, /*print_layout=*/false);
  constexpr size_t kMax = 48;
  if (text.size() > kMax) text = absl::StrCat(text.substr(0, kMax - 3), "...");
  return text;
}

}  // namespace hloff::report_util
