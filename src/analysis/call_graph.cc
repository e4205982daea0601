// Call graph construction.
#include "analysis/call_graph.h"

#include <algorithm>

namespace hloff {

CallGraph::CallGraph(const Module& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      for (Computation* callee : instr->called_computations()) {
        auto& callers = callers_[callee];
        if (std::find(callers.begin(), callers.end(), instr.get()) ==
            callers.end()) {
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
