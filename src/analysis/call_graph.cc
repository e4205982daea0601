// Call graph construction.
#include "analysis/call_graph.h"

#include <algorithm>

namespace hloff {

CallGraph::CallGraph(const Module& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      for (Computation* callee : instr->called_computations()) {
        // An instruction's callees are listed together, so a repeated one
        // (branch_computations={f, f}) finds it last: no scan of a list
        // that a computation with 10^5 callers would make quadratic.
        auto& callers = callers_[callee];
        if (callers.empty() || callers.back() != instr.get()) {
          callers.push_back(instr.get());
        }
      }
    }
  }
}

std::vector<Instruction*> CallGraph::CallersOf(
    const Computation* computation) const {
  std::vector<Instruction*> out;
  auto it = callers_.find(computation);
  if (it == callers_.end()) return out;
  for (Instruction* caller : it->second) {
    if (!caller->IsDead()) out.push_back(caller);
  }
  return out;
}

}  // namespace hloff
