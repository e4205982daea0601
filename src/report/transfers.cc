// Transfers and loops (transfers.h).
#include "report/transfers.h"

#include <limits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "analysis/pipelined_writes.h"
#include "report/report_util.h"

namespace hloff {
namespace {

using report_util::NestedComputations;
using report_util::Ref;

}  // namespace

const Instruction* LoopNesting::InnermostLoop(const Computation* comp) {
  std::vector<const Computation*> chain;
  const Instruction* loop = nullptr;
  while (comp != nullptr && comp != module_.entry()) {
    if (auto it = memo_.find(comp); it != memo_.end()) {
      loop = it->second;
      break;
    }
    chain.push_back(comp);
    std::vector<Instruction*> callers = call_graph_.CallersOf(comp);
    if (callers.empty()) break;
    const Instruction* caller = callers.front();
    if (caller->opcode() == HloOpcode::kWhile) {
      loop = caller;
      break;
    }
    comp = caller->parent();
    // Guard against a malformed, cyclic call graph.
    if (chain.size() > module_.computations().size()) break;
  }
  for (const Computation* c : chain) memo_.emplace(c, loop);
  return loop;
}

std::optional<int64_t> LoopNesting::Executions(const Instruction* loop) {
  std::optional<int64_t> total = 1;
  int64_t depth = 0;
  while (loop != nullptr && total.has_value()) {
    std::optional<int64_t> trips = ConstantTripCount(*loop);
    if (!trips.has_value()) return std::nullopt;
    if (*trips != 0 && *total > std::numeric_limits<int64_t>::max() / *trips) {
      return std::nullopt;
    }
    *total *= *trips;
    loop = InnermostLoop(loop->parent());
    if (++depth > static_cast<int64_t>(module_.computations().size())) {
      return std::nullopt;
    }
  }
  return total;
}

void CollectTransfers(const Module& module,
                      const absl::flat_hash_set<std::string>& input_copies,
                      Report& report) {
  CallGraph call_graph(module);
  LoopNesting nesting(module, call_graph);
  absl::flat_hash_set<const Computation*> nested = NestedComputations(module);
  absl::flat_hash_map<const Instruction*, size_t> loop_index;
  bool per_step_known = true;
  int64_t per_step = 0, per_step_bytes = 0;
  for (const auto& comp : module.computations()) {
    if (nested.contains(comp.get())) continue;
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      Transfer transfer;
      switch (instr->opcode()) {
        case HloOpcode::kCopy:
          if (!IsSynchronousCopyFromOrToHost(instr)) continue;
          transfer.direction = instr->shape().memory_space() == kHostMemorySpace
                                   ? TransferDirection::kToHost
                                   : TransferDirection::kToDevice;
          transfer.bytes = shape_util::ByteSizeOf(instr->shape());
          transfer.inserted = !input_copies.contains(instr->name());
          break;
        case HloOpcode::kDynamicSlice:
          if (instr->operand(0)->shape().memory_space() != kHostMemorySpace ||
              instr->shape().memory_space() == kHostMemorySpace) {
            continue;
          }
          transfer.direction = TransferDirection::kToDevice;
          transfer.bytes = shape_util::ByteSizeOf(instr->shape());
          break;
        case HloOpcode::kDynamicUpdateSlice:
          if (instr->shape().memory_space() != kHostMemorySpace ||
              instr->operand(1)->shape().memory_space() == kHostMemorySpace) {
            continue;
          }
          transfer.direction = TransferDirection::kToHost;
          transfer.bytes = shape_util::ByteSizeOf(instr->operand(1)->shape());
          break;
        default:
          continue;
      }
      transfer.instruction = Ref(instr);
      transfer.opcode = std::string(HloOpcodeString(instr->opcode()));
      const Instruction* loop = nesting.InnermostLoop(comp.get());
      if (loop != nullptr) {
        transfer.loop = std::string(loop->name());
        auto [it, added] = loop_index.try_emplace(loop, report.loops.size());
        if (added) {
          LoopTransfers entry;
          entry.while_loop = Ref(loop);
          entry.trip_count = ConstantTripCount(*loop);
          entry.executions = nesting.Executions(loop);
          report.loops.push_back(std::move(entry));
        }
        LoopTransfers& entry = report.loops[it->second];
        ++entry.transfers_per_iteration;
        entry.bytes_per_iteration += transfer.bytes;
        if (transfer.inserted) {
          ++entry.copies_inserted_per_iteration;
          entry.copies_inserted_bytes_per_iteration += transfer.bytes;
        }
      }
      if (transfer.inserted) {
        ++report.copies_inserted;
        report.copies_inserted_bytes += transfer.bytes;
        if (transfer.direction == TransferDirection::kToHost) {
          ++report.copies_to_host;
        } else {
          ++report.copies_to_device;
        }
        std::optional<int64_t> times = 1;
        if (loop != nullptr) times = report.loops[loop_index.at(loop)].executions;
        if (times.has_value()) {
          per_step += *times;
          per_step_bytes += *times * transfer.bytes;
        } else {
          per_step_known = false;
        }
      }
      report.transfers.push_back(std::move(transfer));
    }
  }
  if (per_step_known) {
    report.copies_inserted_per_step = per_step;
    report.copies_inserted_bytes_per_step = per_step_bytes;
  }
  // Pipelined writes: each is a transfer of its loop (a device-to-host
  // dynamic-update-slice), and so are its peeled writes.
  absl::flat_hash_map<std::pair<std::string, std::string>, size_t> transfer_at;
  for (size_t i = 0; i < report.transfers.size(); ++i) {
    const InstructionRef& ref = report.transfers[i].instruction;
    transfer_at.emplace(std::make_pair(ref.computation, ref.name), i);
  }
  auto mark = [&](const Instruction* instr, absl::string_view kind) {
    auto it = transfer_at.find(
        std::make_pair(std::string(instr->input_computation()),
                       report_util::InputName(instr)));
    if (it != transfer_at.end()) report.transfers[it->second].pipelined = std::string(kind);
  };
  for (const PipelinedHostWrite& found :
       FindPipelinedHostWrites(module, call_graph)) {
    auto loop = loop_index.find(found.loop);
    if (loop == loop_index.end()) continue;
    PipelinedWrite write;
    write.write = Ref(found.write);
    write.carried_index = found.carried_index;
    write.index = std::string(found.index->name());
    write.offset = found.offset;
    mark(found.write, "previous_iteration");
    for (const Instruction* peeled : found.peeled) {
      write.peeled.push_back(Ref(peeled));
      mark(peeled, "peeled");
    }
    report.loops[loop->second].pipelined_writes.push_back(std::move(write));
  }
}

std::optional<int64_t> ConstantTripCount(const Instruction& while_loop) {
  if (while_loop.opcode() != HloOpcode::kWhile) return std::nullopt;
  if (std::optional<RawAttribute> config = while_loop.FindRawAttribute("backend_config")) {
    // {"known_trip_count":{"n":"8"}, ...}, possibly with escaped quotes.
    absl::string_view text = config->value;
    size_t at = text.find("known_trip_count");
    if (at != absl::string_view::npos) {
      size_t n = text.find("\"n\"", at);
      if (n == absl::string_view::npos) n = text.find("\\\"n\\\"", at);
      if (n != absl::string_view::npos) {
        size_t digits = text.find_first_of("0123456789", n);
        size_t end = text.find_first_not_of("0123456789", digits);
        int64_t value = 0;
        if (digits != absl::string_view::npos &&
            absl::SimpleAtoi(text.substr(digits, end - digits), &value)) {
          return value;
        }
      }
    }
  }
  const Computation* condition = while_loop.while_condition();
  const Computation* body = while_loop.while_body();
  if (condition == nullptr || body == nullptr || while_loop.operand_count() != 1 ||
      condition->num_parameters() != 1 || body->num_parameters() != 1) {
    return std::nullopt;
  }
  const Instruction* compare = condition->root();
  if (compare->opcode() != HloOpcode::kCompare || compare->operand_count() != 2) {
    return std::nullopt;
  }
  std::optional<RawAttribute> direction_attr = compare->FindRawAttribute("direction");
  if (!direction_attr) return std::nullopt;
  std::string direction(direction_attr->value);
  auto induction_index = [&](const Instruction* value) -> std::optional<int64_t> {
    if (value->opcode() != HloOpcode::kGetTupleElement ||
        value->operand(0) != condition->parameter(0)) {
      return std::nullopt;
    }
    return value->tuple_index();
  };
  std::optional<int64_t> k = induction_index(compare->operand(0));
  std::optional<int64_t> limit = ScalarIntegerConstant(compare->operand(1));
  if (!k.has_value() || !limit.has_value()) {
    k = induction_index(compare->operand(1));
    limit = ScalarIntegerConstant(compare->operand(0));
    if (!k.has_value() || !limit.has_value()) return std::nullopt;
    // limit OP i  ==  i OP' limit
    if (direction == "LT") {
      direction = "GT";
    } else if (direction == "GT") {
      direction = "LT";
    } else if (direction == "LE") {
      direction = "GE";
    } else if (direction == "GE") {
      direction = "LE";
    }
  }
  const Instruction* init = while_loop.operand(0);
  if (init->opcode() != HloOpcode::kTuple || *k >= init->operand_count()) {
    return std::nullopt;
  }
  std::optional<int64_t> start = ScalarIntegerConstant(init->operand(*k));
  const Instruction* next = body->root();
  if (!start.has_value() || next->opcode() != HloOpcode::kTuple ||
      *k >= next->operand_count()) {
    return std::nullopt;
  }
  const Instruction* update = next->operand(*k);
  if (update->opcode() != HloOpcode::kAdd) return std::nullopt;
  auto is_induction = [&](const Instruction* value) {
    return value->opcode() == HloOpcode::kGetTupleElement &&
           value->operand(0) == body->parameter(0) && value->tuple_index() == *k;
  };
  std::optional<int64_t> step;
  if (is_induction(update->operand(0))) step = ScalarIntegerConstant(update->operand(1));
  if (!step.has_value() && is_induction(update->operand(1))) {
    step = ScalarIntegerConstant(update->operand(0));
  }
  if (!step.has_value() || *step == 0) return std::nullopt;
  auto ceil_div = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  const int64_t s = *start, l = *limit, d = *step;
  if (direction == "LT" && d > 0) return s >= l ? 0 : ceil_div(l - s, d);
  if (direction == "LE" && d > 0) return s > l ? 0 : ceil_div(l - s + 1, d);
  if (direction == "GT" && d < 0) return s <= l ? 0 : ceil_div(s - l, -d);
  if (direction == "GE" && d < 0) return s < l ? 0 : ceil_div(s - l + 1, -d);
  if (direction == "NE" && (l - s) % d == 0 && (l - s) / d >= 0) {
    return (l - s) / d;
  }
  return std::nullopt;
}

}  // namespace hloff
