// kcheck_worker: the one kcheck program that links libtorch. `kcheck run`
// starts one per variant, so whatever the kernel does while it loads (crash,
// abort, exit, hang, flood its output) ends this process only.
//
//   kcheck_worker --info                         WorkerInfo (JSON) about the local Torch on stdout
//   kcheck_worker --result-fd N [--plan PLAN] MODULE.so
//       load MODULE, write the dispatcher audit on descriptor N (a
//       WorkerResult); with PLAN (a WorkerPlan) also check and time its ops
//
// The three messages are typed in checker/harness/worker_protocol.h, which
// kcheck compiles too. The result is written again, whole and ended by a NUL
// byte, at each stage: "loading" before dlopen, "loaded" once the module
// has loaded and the dispatcher was compared, "running" with the op call
// about to happen, and "done" with every op's checks and timings. A parent
// whose last record says "loading" or "running" knows the process ended
// there. The descriptor is a pipe kcheck reads (issue #28): no file a kernel
// can reach is ever taken for the worker's result.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/DispatchKey.h>
#include <nlohmann/json.hpp>
#include <torch/headeronly/version.h>

#include "checker/harness/worker_protocol.h"
#include "checker/harness/worker/op_runner.h"
#include "checker/harness/worker/worker_device.h"
#include "reference/ops/baseline_forms.h"
#include "reference/ops/reference_ops.h"

namespace {

using nlohmann::json;

using kcheck::worker::WorkerResult;
using kcheck::worker::WorkerStage;

void write_result(int fd, const WorkerResult& result) {
  // A NUL first ends whatever else was written on the descriptor (kcheck
  // skips the empty record it makes).
  std::string record = '\0' + json(result).dump();
  record.push_back('\0');
  for (std::size_t written = 0; written < record.size();) {
    const ssize_t n = ::write(fd, record.data() + written, record.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) std::_Exit(3);
    written += static_cast<std::size_t>(n);
  }
}

std::string full_name(const c10::OperatorName& name) {
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

std::string op_namespace(const c10::OperatorName& name) {
  auto separator = name.name.find("::");
  return separator == std::string::npos ? std::string() : name.name.substr(0, separator);
}

// Every operator's registration state (schema and kernels per dispatch key).
std::map<std::string, std::pair<c10::OperatorName, std::string>> snapshot_ops() {
  std::map<std::string, std::pair<c10::OperatorName, std::string>> ops;
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    auto handle = dispatcher.findOp(name);
    ops.emplace(full_name(name), std::make_pair(name, handle ? handle->dumpState() : std::string()));
  }
  return ops;
}

std::set<std::string> snapshot_fallbacks() {
  std::set<std::string> keys;
  auto& dispatcher = c10::Dispatcher::singleton();
  auto last = static_cast<int>(c10::DispatchKey::EndOfRuntimeBackendKeys);
  for (int k = 1; k <= last; ++k) {
    auto key = static_cast<c10::DispatchKey>(k);
    if (key == c10::DispatchKey::EndOfFunctionalityKeys) continue;
    if (dispatcher.hasBackendFallbackForDispatchKey(key)) keys.insert(c10::toString(key));
  }
  return keys;
}

// The native module imports the Python C API for its PyInit (never called
// here); libpython made global lets those symbols resolve at dlopen.
// KCHECK_LIBPYTHON in the environment names another one (a GPU machine
// whose Python differs from the build machine's).
std::string load_libpython() {
  const char* chosen = std::getenv("KCHECK_LIBPYTHON");
#ifdef KCHECK_LIBPYTHON
  if (!chosen || !*chosen) chosen = KCHECK_LIBPYTHON;
#endif
  if (!chosen || !*chosen) return "no libpython known (set KCHECK_LIBPYTHON)";
  if (::dlopen(chosen, RTLD_NOW | RTLD_GLOBAL)) return {};
  const char* error = ::dlerror();
  return error ? error : std::string("cannot load ") + chosen;
}

// The baselines an op spec may name (baseline_forms.cpp, which kcheck
// checks specs against) that reference_ops.cpp cannot time: none in a
// consistent build, so --info refuses to describe a worker with one (a test
// runs it).
std::vector<std::string> untimeable_baselines() {
  std::vector<std::string> names;
  for (const kcheck::reference::BaselineForm& form : kcheck::reference::baseline_forms())
    if (!kcheck::reference::find_baseline(form.name)) names.emplace_back(form.name);
  return names;
}

kcheck::worker::WorkerInfo info() {
  return {TORCH_VERSION, _GLIBCXX_USE_CXX11_ABI == 1, kcheck::worker::available_backends()};
}

// Checks (and times) the module's new ops as the plan says, recording the
// op about to run before every call.
void run_plan(const kcheck::worker::WorkerPlan& plan, WorkerResult& result, int result_fd) {
  kcheck::worker::WorkerDevice device;
  try {
    device = kcheck::worker::open_device(plan.backend);
  } catch (const std::exception& error) {
    result.stage = WorkerStage::done;
    result.run_problem = error.what();
    write_result(result_fd, result);
    return;
  }
  auto stage = [&](const std::string& running) {
    result.stage = WorkerStage::running;
    result.running = running;
    write_result(result_fd, result);
  };
  if (plan.bench.enabled) {
    stage("measuring the device's copy bandwidth");
    result.device = kcheck::worker::measure_device_limits(device, plan.bench);
  } else {
    result.device = kcheck::worker::DeviceLimits{device.name, device.backend};
  }
  std::vector<std::string> names;
  for (const kcheck::worker::RegisteredOp& op : result.new_ops) names.push_back(op.name);
  // The working directory: the worker's own writable scratch.
  char cwd[4096];
  const std::string work_dir = ::getcwd(cwd, sizeof cwd) ? std::string(cwd) : std::string(".");
  kcheck::worker::OpsRun ran = kcheck::worker::run_ops(names, plan, device, stage, work_dir);
  result.ops = std::move(ran.ops);
  result.benchmarks = std::move(ran.benchmarks);
  result.running.clear();
  result.stage = WorkerStage::done;
  write_result(result_fd, result);
}

}  // namespace

int main(int argc, char** argv) {
  std::string first = argc > 1 ? argv[1] : "";
  if (first == "--info") {
    const std::vector<std::string> untimeable = untimeable_baselines();
    for (const std::string& name : untimeable)
      std::cerr << "kcheck_worker: baseline '" << name << "' of reference/ops/baseline_forms.cpp has no libtorch "
                << "form in reference/ops/reference_ops.cpp\n";
    if (!untimeable.empty()) return 1;
    std::cout << json(info()).dump() << "\n";
    return 0;
  }
  std::string plan_path, module_path;
  int result_fd = -1;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--result-fd" && i + 1 < argc)
      result_fd = std::atoi(argv[++i]);
    else if (argument == "--plan" && i + 1 < argc)
      plan_path = argv[++i];
    else if (module_path.empty() && argument.rfind("--", 0) != 0)
      module_path = argument;
    else
      module_path.clear(), result_fd = -1, i = argc;
  }
  if (result_fd < 0 || module_path.empty()) {
    std::cerr << "usage: kcheck_worker --info | --result-fd N [--plan PLAN.json] MODULE.so\n";
    return 2;
  }
  std::optional<kcheck::worker::WorkerPlan> plan;
  if (!plan_path.empty()) {
    std::ifstream plan_file(plan_path, std::ios::binary);
    try {
      plan = json::parse(plan_file).get<kcheck::worker::WorkerPlan>();
    } catch (const std::exception& error) {
      std::cerr << "kcheck_worker: bad plan " << plan_path << ": " << error.what() << "\n";
      return 2;
    }
  }

  WorkerResult result;
  result.libpython_problem = load_libpython();

  auto ops_before = snapshot_ops();
  auto fallbacks_before = snapshot_fallbacks();

  result.stage = WorkerStage::loading;
  write_result(result_fd, result);
  std::cout.flush();

  void* handle = ::dlopen(module_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = ::dlerror();
    result.stage = WorkerStage::load_failed;
    result.load_error = error ? error : "dlopen failed";
    write_result(result_fd, result);
    return 0;
  }
  std::fflush(stdout);

  for (const auto& [key, value] : snapshot_ops()) {
    auto before = ops_before.find(key);
    if (before == ops_before.end())
      result.new_ops.push_back({key, op_namespace(value.first)});
    else if (before->second.second != value.second)
      result.changed_ops.push_back({key, op_namespace(value.first)});
  }
  for (const std::string& key : snapshot_fallbacks())
    if (!fallbacks_before.contains(key)) result.new_fallbacks.push_back(key);

  result.stage = WorkerStage::loaded;
  write_result(result_fd, result);
  if (plan) run_plan(*plan, result, result_fd);
  // No dlclose and no static destructors of the module: _Exit right away.
  std::_Exit(0);
}
