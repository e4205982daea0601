// RETURN_IF_ERROR and ASSIGN_OR_RETURN, as XLA's tsl/platform/errors.h and
// statusor.h spell them: return a failed absl::Status (or the status of a
// failed absl::StatusOr) from the enclosing function. Header only, with no
// dependency beyond abseil, so that every layer may use it.
#ifndef HLO_OFFLOAD_SUPPORT_STATUS_MACROS_H_
#define HLO_OFFLOAD_SUPPORT_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Evaluates `expr` (an absl::Status) once and returns it when it is not OK.
#define RETURN_IF_ERROR(expr)                                   \
  do {                                                          \
    if (auto hloff_status_ = (expr); !hloff_status_.ok()) {     \
      return hloff_status_;                                     \
    }                                                           \
  } while (false)

#define HLOFF_STATUS_CONCAT_INNER_(a, b) a##b
#define HLOFF_STATUS_CONCAT_(a, b) HLOFF_STATUS_CONCAT_INNER_(a, b)

// Evaluates `rexpr` (an absl::StatusOr<T>) once; returns its status when it
// is not OK, else moves its value into `lhs` (a declaration such as
// `auto shape` or an existing variable). Expands to several statements: not
// for the body of an unbraced if.
#define ASSIGN_OR_RETURN(lhs, rexpr)                                      \
  HLOFF_ASSIGN_OR_RETURN_IMPL_(                                           \
      HLOFF_STATUS_CONCAT_(hloff_status_or_, __LINE__), lhs, rexpr)
#define HLOFF_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#endif  // HLO_OFFLOAD_SUPPORT_STATUS_MACROS_H_
