// Host-offloading lints (HO3xxx).
#include "passes/offload_lints.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"

namespace hloff {
namespace {

std::string Bytes(int64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.4g %s", value, kUnits[unit]);
}

// " (file.py:12)" from an instruction's metadata, or "".
std::string SourceSuffix(const Module& module, const Instruction* instr) {
  auto pos = module.ResolveSource(instr->metadata());
  if (!pos || pos->file.empty()) return "";
  std::string file = pos->file;
  size_t slash = file.rfind('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return absl::StrCat(" (", file, ":", pos->line, ")");
}

bool HasHostLeaf(const Shape& shape) {
  bool host = false;
  ShapeIndex scratch;
  shape_util::ForEachSubshape(
      shape,
      [&](const Shape& sub, const ShapeIndex&) {
        host |= sub.IsArray() && sub.memory_space() == kHostMemorySpace;
      },
      scratch);
  return host;
}

bool IsToHostAnnotation(const Instruction* instr) {
  if (IsMoveToHost(instr)) return true;
  if (!instr->IsCustomCall(kDevicePlacementTarget)) return false;
  auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
  return kind && (*kind == "pinned_host" || *kind == "unpinned_host");
}

bool IsToDeviceAnnotation(const Instruction* instr) {
  if (IsMoveToDevice(instr)) return true;
  if (!instr->IsCustomCall(kDevicePlacementTarget)) return false;
  auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
  return kind && *kind == "device";
}

bool IsAnnotation(const Instruction* instr) {
  return IsMoveToHost(instr) || IsMoveToDevice(instr) ||
         instr->IsCustomCall(kDevicePlacementTarget) ||
         instr->IsCustomCall(kPinToDeviceTarget) ||
         instr->IsCustomCall(kPinToDeviceSramTarget);
}

Diagnostic Lint(DiagCode code, std::string message, const Instruction* instr) {
  Diagnostic d = MakeDiagnostic(code, std::move(message), instr);
  return d;
}

std::string Key(const Instruction* instr) {
  return absl::StrCat(instr->parent()->name(), "/", instr->name());
}

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

}  // namespace

LintInputFacts LintInput(const Module& module, std::vector<Diagnostic>& out) {
  LintInputFacts facts;
  const EntryComputationLayout& layout = module.entry_computation_layout();
  for (size_t i = 0; i < layout.parameters.size(); ++i) {
    if (HasHostLeaf(layout.parameters[i]) && !facts.asks_for_host_memory) {
      facts.asks_for_host_memory = true;
      facts.first_request = absl::StrCat("entry parameter ", i, " (S(5) in entry_computation_layout)");
    }
  }
  if (HasHostLeaf(layout.result) && !facts.asks_for_host_memory) {
    facts.asks_for_host_memory = true;
    facts.first_request = "the entry result (S(5) in entry_computation_layout)";
  }
  bool has_annotations = false;
  const Instruction* first_leak = nullptr;
  int64_t leaks = 0;
  Computation* entry = module.entry();
  for (const auto& comp : module.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      has_annotations |= IsAnnotation(instr);
      if (IsToHostAnnotation(instr) && !facts.asks_for_host_memory) {
        facts.asks_for_host_memory = true;
        facts.first_request = std::string(instr->name());
        facts.first_request_loc = instr->loc();
      }
      // HO3008: S(5) where the passes do not read it.
      bool legit = (instr->opcode() == HloOpcode::kParameter &&
                    comp.get() == entry) ||
                   IsAnnotation(instr) ||
                   instr->IsCustomCall(kAllocateBufferTarget);
      if (!legit && HasHostLeaf(instr->shape())) {
        if (first_leak == nullptr) first_leak = instr;
        ++leaks;
      }
      // HO3004: annotations that a later step drops.
      if (instr->IsCustomCall(kDevicePlacementTarget)) {
        auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
        static const char* const kKnown[] = {"pinned_host", "unpinned_host",
                                             "device", "vmem", "pinned_device"};
        bool known = false;
        for (const char* k : kKnown) known |= kind && *kind == k;
        if (!known) {
          out.push_back(Lint(
              DiagCode::kHO3004,
              kind ? absl::StrCat("annotate_device_placement \"", instr->name(),
                                  "\" has the unknown memory kind \"", *kind,
                                  "\"; it is left in the module and no "
                                  "offloading happens for it")
                   : absl::StrCat("annotate_device_placement \"", instr->name(),
                                  "\" has no _xla_buffer_placement frontend "
                                  "attribute; it is left in the module and no "
                                  "offloading happens for it"),
              instr));
        }
      }
      if (IsToHostAnnotation(instr)) {
        if (instr->users().empty() && !instr->IsRoot()) {
          out.push_back(Lint(DiagCode::kHO3004,
                             absl::StrCat("\"", instr->name(),
                                          "\" moves a value to host but nothing "
                                          "uses it; it is dropped without "
                                          "effect"),
                             instr));
        } else if (!instr->IsRoot()) {
          const Instruction* last = SkipHopsDown(instr);
          if (last != instr && last->IsRoot() && comp.get() == entry &&
              instr->user_count() == 1) {
            out.push_back(Lint(
                DiagCode::kHO3004,
                absl::StrCat("\"", instr->name(),
                             "\" reaches the entry root only through bitcasts, "
                             "so XLA finds nothing to offload: the annotation "
                             "is deleted, no host copy is made and the output "
                             "layout is not checked"),
                instr));
          }
        }
        if (instr->IsRoot() && comp.get() == entry && !HasHostLeaf(layout.result)) {
          Diagnostic d = Lint(
              DiagCode::kHO3004,
              absl::StrCat("the root value \"", instr->name(),
                           "\" is placed in host memory", SourceSuffix(module, instr),
                           " but entry_computation_layout declares the result "
                           "in device memory; XLA returns a host copy without "
                           "checking the layout (a declared host output is "
                           "missing from the layout)"),
              instr);
          d.fixes.push_back(Fix{"host-output",
                                "restore memory_kind=\"pinned_host\" on the "
                                "output (out_shardings), so that the layout "
                                "says S(5)"});
          out.push_back(std::move(d));
        }
      }
      if (IsToDeviceAnnotation(instr) && instr->operand_count() == 1) {
        const Instruction* operand = instr->operand(0);
        if (operand->opcode() == HloOpcode::kParameter && comp.get() == entry &&
            !HasHostLeaf(layout.parameters[operand->parameter_number()])) {
          out.push_back(Lint(
              DiagCode::kHO3004,
              absl::StrCat("entry parameter \"", operand->name(),
                           "\" is moved to device right at entry",
                           SourceSuffix(module, instr),
                           " but its layout is already device memory; if it "
                           "was meant to be a host input, give it "
                           "memory_kind=\"pinned_host\" in in_shardings"),
              instr));
        }
      }
      // HO3006: a layout-changing copy between an offloaded value and a host
      // output.
      if (instr->opcode() == HloOpcode::kCopy && comp.get() == entry &&
          IsToHostAnnotation(instr->operand(0)) &&
          instr->shape().layout.minor_to_major !=
              instr->operand(0)->shape().layout.minor_to_major) {
        std::optional<ShapeIndex> output;
        if (instr->IsRoot()) {
          output = ShapeIndex{};
        } else {
          for (const Instruction* user : instr->users()) {
            if (user->IsRoot() && user->opcode() == HloOpcode::kTuple) {
              output = ShapeIndex{user->OperandIndices(instr).front()};
            }
          }
        }
        const Shape* declared =
            output ? shape_util::TryGetSubshape(layout.result, *output) : nullptr;
        if (declared != nullptr && HasHostLeaf(*declared)) {
          const Instruction* value = instr->operand(0)->operand(0);
          Diagnostic d = Lint(
              DiagCode::kHO3006,
              absl::StrCat(
                  "\"", value->name(), "\"", SourceSuffix(module, value),
                  " is offloaded with layout ",
                  ShapeToString(instr->operand(0)->shape()),
                  " but returned in host memory as ",
                  ShapeToString(instr->shape()), ": the ",
                  Bytes(shape_util::ByteSizeOf(instr->shape())),
                  " layout change is a transpose; HostOffloadLegalize cannot "
                  "move it past the output, so it hoists it above the "
                  "MoveToHost onto the device (an extra ",
                  Bytes(shape_util::ByteSizeOf(instr->shape())),
                  " device buffer)"),
              instr);
          d.fixes.push_back(Fix{"layout",
                                "give the value the output's layout before the "
                                "device_put (or make the output layout match), "
                                "so that no transpose is needed"});
          out.push_back(std::move(d));
        }
      }
      // Seeds shared by several loop-carried buffers (for HO3003).
      if (instr->opcode() == HloOpcode::kWhile &&
          instr->operand(0)->opcode() == HloOpcode::kTuple) {
        const Instruction* init = instr->operand(0);
        absl::flat_hash_map<const Instruction*, std::vector<int64_t>> seeds;
        for (int64_t p = 0; p < init->operand_count(); ++p) {
          const Instruction* seed = init->operand(p);
          while (IsToHostAnnotation(seed) || seed->opcode() == HloOpcode::kCopy) {
            seed = seed->operand(0);
          }
          if (seed->opcode() == HloOpcode::kBroadcast) seeds[seed].push_back(p);
        }
        for (const Instruction* seed : init->operands()) {
          const Instruction* base = seed;
          while (IsToHostAnnotation(base) || base->opcode() == HloOpcode::kCopy) {
            base = base->operand(0);
          }
          auto it = seeds.find(base);
          if (it == seeds.end() || it->second.size() < 2) continue;
          facts.shared_seeds.push_back({std::string(base->name()), base->loc(), std::string(instr->name()),
                                        comp->name(), it->second});
          seeds.erase(it);
        }
      }
      if (ComputeTypeIsHost(instr)) facts.preexisting_host_compute.insert(Key(instr));
    }
  }
  if (first_leak != nullptr && has_annotations) {
    out.push_back(Lint(
        DiagCode::kHO3008,
        absl::StrCat("\"", first_leak->name(), "\" carries host memory space ",
                     "S(5) in its shape ", ShapeToString(first_leak->shape()),
                     leaks > 1 ? absl::StrCat(" (and ", leaks - 1,
                                              " more instructions)")
                               : std::string(),
                     "; before HostOffloader only entry parameters and "
                     "annotations may say where a value lives, so the passes "
                     "clear it (this is how a layout-assignment leak shows up)"),
        first_leak));
  }
  return facts;
}

void LintOutput(const Module& module, const LintInputFacts& facts,
                std::vector<Diagnostic>& out) {
  CallGraph call_graph(module);
  // Loop counters of a while body: the tuple elements its root sets to
  // element + constant (or - constant).
  absl::flat_hash_map<const Computation*, absl::flat_hash_set<int64_t>> counters;
  auto LoopCounters = [&](const Computation* body)
      -> const absl::flat_hash_set<int64_t>& {
    auto [it, inserted] = counters.try_emplace(body);
    if (!inserted) return it->second;
    const Instruction* root = body->root();
    if (root->opcode() != HloOpcode::kTuple || body->num_parameters() != 1) {
      return it->second;
    }
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      const Instruction* next = root->operand(i);
      if (next->opcode() != HloOpcode::kAdd &&
          next->opcode() != HloOpcode::kSubtract) {
        continue;
      }
      bool has_self = false, has_constant = false;
      for (const Instruction* op : next->operands()) {
        has_self |= op->opcode() == HloOpcode::kGetTupleElement &&
                    op->operand(0) == body->parameter(0) &&
                    op->tuple_index() == i;
        has_constant |= op->opcode() == HloOpcode::kConstant;
      }
      if (has_self && has_constant) it->second.insert(i);
    }
    return it->second;
  };
  bool any_host = false;
  absl::flat_hash_map<std::string, const Instruction*> whiles;
  for (const auto& comp : module.computations()) {
    std::vector<Instruction*> callers = call_graph.CallersOf(comp.get());
    bool is_loop_body = callers.size() == 1 &&
                        callers[0]->opcode() == HloOpcode::kWhile &&
                        callers[0]->while_body() == comp.get();
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      any_host |= HasHostLeaf(instr->shape());
      if (instr->opcode() == HloOpcode::kWhile) {
        whiles[absl::StrCat(comp->name(), "/", instr->name())] = instr;
      }
      // HO3001: host compute whose every user moves it to device.
      if (ComputeTypeIsHost(instr) && !facts.preexisting_host_compute.contains(Key(instr)) &&
          instr->operand_count() >= 1 && !instr->users().empty() &&
          instr->opcode() != HloOpcode::kDynamicSlice &&
          instr->opcode() != HloOpcode::kDynamicUpdateSlice &&
          instr->opcode() != HloOpcode::kCopy) {
        bool all_to_device = true;
        for (const Instruction* user : instr->users()) {
          all_to_device &= user->opcode() == HloOpcode::kCopy &&
                           user->shape().memory_space() == kDefaultMemorySpace;
        }
        const Instruction* input = nullptr;
        for (const Instruction* op : instr->operands()) {
          if (op->shape().memory_space() == kHostMemorySpace) input = op;
        }
        if (all_to_device && input != nullptr) {
          int64_t now = shape_util::ByteSizeOf(instr->shape());
          int64_t after = shape_util::ByteSizeOf(input->shape());
          Diagnostic d = Lint(
              DiagCode::kHO3001,
              absl::StrCat("\"", instr->name(), "\" (", instr->opcode_spelling(),
                           ")", SourceSuffix(module, instr),
                           " computes on host data right before it is moved to "
                           "device, so XLA runs it on the host"),
              instr);
          d.fixes.push_back(Fix{
              "swap",
              absl::StrCat("move the device_put before it (e.g. ",
                           instr->opcode_spelling(), "(device_put(x)) instead of "
                           "device_put(", instr->opcode_spelling(),
                           "(x))) so that it runs on device; the transfer "
                           "changes from ",
                           Bytes(now), " to ", Bytes(after))});
          out.push_back(std::move(d));
        }
      }
      // HO3002: scatter / gather on host memory.
      if (instr->opcode() == HloOpcode::kScatter ||
          instr->opcode() == HloOpcode::kGather) {
        bool host = HasHostLeaf(instr->shape()) || ComputeTypeIsHost(instr);
        for (const Instruction* op : instr->operands()) {
          host |= HasHostLeaf(op->shape());
        }
        if (host) {
          Diagnostic d = Lint(
              DiagCode::kHO3002,
              absl::StrCat(instr->opcode_spelling(), " \"", instr->name(), "\"",
                           SourceSuffix(module, instr),
                           " reads or writes a host-memory buffer; XLA's "
                           "backends do not support this and fail"),
              instr);
          d.severity = Severity::kError;
          d.fixes.push_back(Fix{
              "move-to-device",
              "bring the buffer to device first (jax.device_put(x, "
              "x.sharding.with_memory_kind(\"device\"))), do the "
              "scatter/gather there, and offload the result afterwards"});
          out.push_back(std::move(d));
        }
      }
      // HO3005: host dynamic-slice indexed by a function of the counter.
      if (is_loop_body && instr->opcode() == HloOpcode::kDynamicSlice &&
          instr->operand(0)->shape().memory_space() == kHostMemorySpace) {
        for (int64_t i = 1; i < instr->operand_count(); ++i) {
          const Instruction* index = instr->operand(i);
          if (index->opcode() == HloOpcode::kConstant ||
              index->opcode() == HloOpcode::kGetTupleElement) {
            continue;
          }
          // Does it depend on the loop counter (a GTE of the body parameter
          // at an index the root increments by a constant)?
          std::vector<const Instruction*> stack = {index};
          absl::flat_hash_set<const Instruction*> seen;
          bool depends = false;
          const absl::flat_hash_set<int64_t>& counters = LoopCounters(comp.get());
          while (!stack.empty() && !depends && seen.size() < 64) {
            const Instruction* at = stack.back();
            stack.pop_back();
            if (!seen.insert(at).second) continue;
            if (at->opcode() == HloOpcode::kGetTupleElement &&
                at->operand(0)->opcode() == HloOpcode::kParameter &&
                counters.contains(at->tuple_index())) {
              depends = true;
            }
            for (const Instruction* op : at->operands()) stack.push_back(op);
          }
          if (!depends) continue;
          out.push_back(Lint(
              DiagCode::kHO3005,
              absl::StrCat("dynamic-slice \"", instr->name(), "\" reads host "
                           "buffer \"", instr->operand(0)->name(),
                           "\" at index \"", index->name(), "\" (",
                           index->opcode_spelling(),
                           "), a function of the loop counter rather than the "
                           "counter itself; this shape was behind a known GPU "
                           "miscompile of offloaded scan residuals: compare "
                           "the results against a run without offloading"),
              instr));
          break;
        }
      }
      // HO3007: DUS memory spaces outside the sanctioned forms.
      if (instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
        int64_t buffer = instr->operand(0)->shape().memory_space();
        int64_t update = instr->operand(1)->shape().memory_space();
        int64_t result = instr->shape().memory_space();
        if (update == kHostMemorySpace && result != kHostMemorySpace) {
          const Instruction* source = instr->operand(1);
          out.push_back(Lint(
              DiagCode::kHO3007,
              absl::StrCat("dynamic-update-slice \"", instr->name(),
                           "\" writes host value \"", source->name(), "\"",
                           SourceSuffix(module, source), " into ",
                           buffer == kHostMemorySpace ? "a host" : "a device",
                           " buffer and stays in device memory: XLA turns it "
                           "into host compute; move the update back to device "
                           "first (annotate it with \"device\" / "
                           "jax.device_put(x, x.sharding.with_memory_kind("
                           "\"device\"))), the sanctioned form is a device "
                           "update into a host buffer"),
              instr));
        }
      }
    }
  }
  // HO3003: one broadcast seeds host and device loop buffers.
  for (const auto& seed : facts.shared_seeds) {
    auto it = whiles.find(absl::StrCat(seed.computation, "/", seed.while_name));
    if (it == whiles.end()) continue;
    const Shape& shape = it->second->shape();
    std::vector<std::string> host, device;
    for (int64_t p : seed.positions) {
      const Shape* sub = shape_util::TryGetSubshape(shape, {p});
      if (sub == nullptr) continue;
      (HasHostLeaf(*sub) ? host : device).push_back(absl::StrCat("{", p, "}"));
    }
    if (host.empty() || device.empty()) continue;
    Diagnostic d;
    d.code = DiagCode::kHO3003;
    d.severity = Severity::kWarning;
    d.loc = seed.loc;
    d.instruction = seed.broadcast;
    d.computation = seed.computation;
    d.message = absl::StrCat(
        "broadcast \"", seed.broadcast, "\" seeds loop-carried buffers ",
        absl::StrJoin(host, ", "), " (host memory) and ",
        absl::StrJoin(device, ", "), " (device memory) of while \"",
        seed.while_name,
        "\"; when CSE merges such seeds XLA fails with a shape or memory-space "
        "mismatch; give each buffer its own broadcast (one jnp.zeros per "
        "carry)");
    out.push_back(std::move(d));
  }
  if (facts.asks_for_host_memory && !any_host) {
    Diagnostic d;
    d.code = DiagCode::kHO3004;
    d.severity = Severity::kWarning;
    d.loc = facts.first_request_loc.known() ? facts.first_request_loc
                                            : module.entry()->root()->loc();
    d.instruction = facts.first_request;
    d.message = absl::StrCat("host memory is asked for (", facts.first_request,
                             ") but no tensor ends up in host memory: the "
                             "offload has no effect");
    out.push_back(std::move(d));
  }
}

}  // namespace hloff
