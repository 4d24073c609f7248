// kcheck_worker: the one kcheck program that links libtorch. `kcheck run`
// starts one per variant, so whatever the kernel does while it loads (crash,
// abort, exit, hang, flood its output) ends this process only.
//
//   kcheck_worker --info                       JSON about the local Torch on stdout
//   kcheck_worker --result FILE MODULE.so      load MODULE, write the dispatcher audit to FILE
//
// The result file is written twice, each time atomically (tmp + rename):
// {"stage":"loading"} before dlopen, and the full result once the module has
// loaded and the dispatcher was compared. A parent that finds "loading" knows
// the process ended during the load.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/DispatchKey.h>
#include <nlohmann/json.hpp>
#include <torch/headeronly/version.h>

namespace {

using nlohmann::json;

void write_result(const std::string& path, const json& result) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file << result.dump(2) << "\n";
    if (!file) std::_Exit(3);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) std::_Exit(3);
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
std::string load_libpython() {
#ifdef KCHECK_LIBPYTHON
  if (::dlopen(KCHECK_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL)) return {};
  const char* error = ::dlerror();
  return error ? error : "cannot load " KCHECK_LIBPYTHON;
#else
  return "no libpython known at build time";
#endif
}

json info() {
  return {{"torch_version", TORCH_VERSION},
          {"cxx11_abi", _GLIBCXX_USE_CXX11_ABI == 1},
          {"backends", json::array({"cpu"})}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string first = argc > 1 ? argv[1] : "";
  if (first == "--info") {
    std::cout << info().dump() << "\n";
    return 0;
  }
  if (argc != 4 || first != "--result") {
    std::cerr << "usage: kcheck_worker --info | --result FILE MODULE.so\n";
    return 2;
  }
  const std::string result_path = argv[2];
  const std::string module_path = argv[3];

  json result = info();
  result["module"] = module_path;
  std::string libpython_problem = load_libpython();
  if (!libpython_problem.empty()) result["libpython_problem"] = libpython_problem;

  auto ops_before = snapshot_ops();
  auto fallbacks_before = snapshot_fallbacks();

  result["stage"] = "loading";
  write_result(result_path, result);
  std::cout.flush();

  void* handle = ::dlopen(module_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = ::dlerror();
    result["stage"] = "load_failed";
    result["load_error"] = error ? error : "dlopen failed";
    write_result(result_path, result);
    return 0;
  }
  std::fflush(stdout);

  json new_ops = json::array();
  json changed_ops = json::array();
  for (const auto& [key, value] : snapshot_ops()) {
    auto before = ops_before.find(key);
    if (before == ops_before.end())
      new_ops.push_back({{"name", key}, {"namespace", op_namespace(value.first)}});
    else if (before->second.second != value.second)
      changed_ops.push_back({{"name", key}, {"namespace", op_namespace(value.first)}});
  }
  json new_fallbacks = json::array();
  for (const std::string& key : snapshot_fallbacks())
    if (!fallbacks_before.contains(key)) new_fallbacks.push_back(key);

  result["stage"] = "loaded";
  result["new_ops"] = new_ops;
  result["changed_ops"] = changed_ops;
  result["new_fallbacks"] = new_fallbacks;
  write_result(result_path, result);
  // No dlclose and no static destructors of the module: _Exit right away.
  std::_Exit(0);
}
