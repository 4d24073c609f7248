#pragma once
#include <optional>
#include <string>
#include <vector>

#include "checker/core/bounded_process.h"

namespace kcheck {

// How one worker process ended (decoded by run_bounded).
using WorkerEnd = ProcessEnd;

// An operator the dispatcher holds after the load, with its namespace.
struct DispatcherOp {
  std::string name;        // "ns::op" or "ns::op.overload"
  std::string op_namespace;
};

// What `kcheck run` observed for one variant. Absent unless `kcheck run`
// ran: the KD and KO006 rules stay silent without it.
struct HarnessFacts {
  // Set when the variant was not run here (KD005): what would be needed.
  std::string skipped_because;
  std::string own_namespace;        // the variant's id: its ops' namespace
  std::string module_relative_path; // the native module loaded
  WorkerEnd worker;
  bool load_started = false;        // the worker reached dlopen
  bool loaded = false;              // dlopen returned and the audit finished
  std::string load_error;           // dlerror() when dlopen failed
  std::string harness_problem;      // result unreadable, worker missing, ...
  std::vector<DispatcherOp> new_ops;
  std::vector<DispatcherOp> changed_ops;   // existing ops whose registrations changed
  std::vector<std::string> new_fallbacks;  // dispatch keys that gained a fallback
};

}  // namespace kcheck
