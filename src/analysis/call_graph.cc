// Call graph construction.
#include "analysis/call_graph.h"

#include <algorithm>

namespace hloff {

CallGraph::CallGraph(const Module& module) {
  for (const auto& comp : module.computations()) {
    for (Instruction* instr : comp->key_instructions()) {
      for (Computation* callee : instr->called_computations()) {
        // An instruction's calls are consecutive: a repeat is the last one.
        auto& callers = callers_[callee];
        if (callers.empty() || callers.back() != instr) {
          callers.push_back(instr);
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
