// What several lint checkers share: the factory of each checker (the
// registry's table lists them), message pieces and the annotation
// predicates. Internal to src/lints/.
#ifndef HLO_OFFLOAD_LINTS_LINT_UTIL_H_
#define HLO_OFFLOAD_LINTS_LINT_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "analysis/offload_utils.h"
#include "ir/hlo.h"
#include "ir/shape.h"
#include "lints/lint_registry.h"

namespace hloff {

// The checkers, one per file, named for their code's name in codes.def.
std::unique_ptr<LintChecker> NewComputeOnHostBeforeMoveToDevice();          // HO3001
std::unique_ptr<LintChecker> NewScatterGatherOnHostMemory();                // HO3002
std::unique_ptr<LintChecker> NewHostMemoryRequestNotHonored();              // HO3004
std::unique_ptr<LintChecker> NewHostDynamicSliceIndexNotInductionVariable();  // HO3005
std::unique_ptr<LintChecker> NewLayoutChangeOnHostPath();                   // HO3006
std::unique_ptr<LintChecker> NewDynamicUpdateSliceMemorySpaceMismatch();    // HO3007
std::unique_ptr<LintChecker> NewLeakedHostMemorySpace();                    // HO3008
std::unique_ptr<LintChecker> NewNestedHostStack();                          // HO3009
std::unique_ptr<LintChecker> NewPipelinedHostWrite();                       // HO3010
std::unique_ptr<LintChecker> NewLargeConditionalPassThroughOnHost();        // HO3011
std::unique_ptr<LintChecker> NewPinnedHostBudgetExceeded();                 // HO3012
std::unique_ptr<LintChecker> NewOffloadInManualShardingRegion();            // HO3013
std::unique_ptr<LintChecker> NewHostRoundTripSavesNoMemory();               // HO3014
std::unique_ptr<LintChecker> NewModuleAlreadyOffloaded();                   // HO3015
std::unique_ptr<LintChecker> NewEntryLayoutWithoutMemoryKinds();            // HO3016
std::unique_ptr<LintChecker> NewShardedModuleCheckedAsOnePartition();        // HO3017

// A byte count as the messages write it (shape_util::BytesToString).
inline std::string LintBytes(int64_t bytes) {
  return shape_util::BytesToString(bytes);
}

// " (file.py:12)" from an instruction's metadata, or "".
std::string SourceSuffix(const Module& module, const Instruction* instr);

// Whether an array leaf of `shape` is in host memory (S(5)).
inline bool HasHostLeaf(const Shape& shape) {
  return shape_util::AnyArrayLeafInMemorySpace(shape, kHostMemorySpace);
}

// A MoveToHost, or an annotate_device_placement to pinned_host or
// unpinned_host.
inline bool IsToHostAnnotation(const Instruction* instr) {
  if (IsMoveToHost(instr)) return true;
  if (!instr->IsCustomCall(kDevicePlacementTarget)) return false;
  auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
  return kind && (*kind == "pinned_host" || *kind == "unpinned_host");
}

// A MoveToDevice, or an annotate_device_placement to device.
inline bool IsToDeviceAnnotation(const Instruction* instr) {
  if (IsMoveToDevice(instr)) return true;
  if (!instr->IsCustomCall(kDevicePlacementTarget)) return false;
  auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
  return kind && *kind == "device";
}

}  // namespace hloff

#endif  // HLO_OFFLOAD_LINTS_LINT_UTIL_H_
