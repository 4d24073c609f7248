#include <algorithm>
#include <array>
#include <optional>

#include "checker/facts/tree_facts.h"
#include "checker/python/python_name_resolution.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

// How a pattern matches a qualified callee: "subprocess." matches every
// callee it starts, "os.exec*" every callee starting with "os.exec",
// ".dlopen" every callee ending so; anything else only itself.
bool matches(std::string_view qualified, std::string_view pattern) {
  if (pattern.starts_with('.')) return qualified.ends_with(pattern);
  if (pattern.ends_with('.')) return qualified.starts_with(pattern);
  if (pattern.ends_with('*')) return qualified.starts_with(pattern.substr(0, pattern.size() - 1));
  return qualified == pattern;
}

template <std::size_t N>
bool matches_any(std::string_view qualified, const std::array<std::string_view, N>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](std::string_view p) { return matches(qualified, p); });
}

struct RiskyCallee {
  std::string_view pattern;
  std::string_view why;
};

constexpr std::array<RiskyCallee, 16> kRiskyCallees = {{
    {"os.system", "runs a shell command"},
    {"os.popen", "runs a shell command"},
    {"os.exec*", "replaces the process with another program"},
    {"os.spawn*", "starts another program"},
    {"subprocess.", "starts another program"},
    {"pty.spawn", "starts another program"},
    {"socket.", "opens a network socket"},
    {"urllib.", "fetches from the network"},
    {"http.client.", "fetches from the network"},
    {"requests.", "fetches from the network"},
    {"httpx.", "fetches from the network"},
    {"pickle.load*", "unpickles data, which can run arbitrary code"},
    {"pickle.Unpickler", "unpickles data, which can run arbitrary code"},
    {"marshal.load*", "loads marshalled code objects"},
    {"shelve.open", "unpickles data, which can run arbitrary code"},
    {"webbrowser.", "opens a browser"},
}};

constexpr std::array<std::string_view, 3> kBuiltinExecutors = {"eval", "exec", "compile"};
constexpr std::array<std::string_view, 2> kDynamicImporters = {"importlib.import_module", "__import__"};
constexpr std::array<std::string_view, 8> kLibraryLoaders = {"ctypes.CDLL",
                                                             "ctypes.PyDLL",
                                                             "ctypes.WinDLL",
                                                             "ctypes.cdll.LoadLibrary",
                                                             "ctypes.pydll.LoadLibrary",
                                                             "ctypes.LibraryLoader",
                                                             "torch.ops.load_library",
                                                             ".dlopen"};
constexpr std::array<std::string_view, 3> kOpeners = {"open", "io.open", "builtins.open"};
constexpr std::array<std::string_view, 3> kTemporaryDirectories = {"/tmp/", "/var/tmp/", "/dev/shm/"};

// A library path built from the package's own location stays in the variant.
bool refers_to_variant(const PythonCall& call) {
  if (call.arguments.empty()) return false;
  const std::string& path = call.arguments.front();
  return path.find("__file__") != std::string::npos || path.find("__path__") != std::string::npos ||
         path.find("files(__package__") != std::string::npos;
}

std::optional<std::string> write_mode(const PythonCall& call) {
  for (std::size_t i = 1; i < call.arguments.size(); ++i) {
    std::string_view argument = call.arguments[i];
    if (argument.starts_with("mode="))
      argument.remove_prefix(5);
    else if (i != 1)
      continue;
    if (argument.size() >= 2 && (argument.front() == '"' || argument.front() == '\'') &&
        argument.find_first_of("wax+") != std::string_view::npos) {
      return std::string(argument);
    }
  }
  return std::nullopt;
}

bool outside_temporary_directories(std::string_view path) {
  if (!path.starts_with('/') && !path.starts_with('~')) return false;  // relative: judged nowhere
  return std::none_of(kTemporaryDirectories.begin(), kTemporaryDirectories.end(),
                      [&](std::string_view temporary) { return path.starts_with(temporary); });
}

// Why `call` (with its callee qualified through the file's imports) executes
// or fetches, or nullopt when it does not.
std::optional<std::string> risk_of(const PythonCall& call, const std::string& qualified, const PythonFileFacts& file) {
  for (const RiskyCallee& risky : kRiskyCallees) {
    if (matches(qualified, risky.pattern)) return std::string(risky.why);
  }
  const auto& own_names = file.top_level_names;
  if (qualified == call.callee && matches_any(qualified, kBuiltinExecutors) &&
      std::find(own_names.begin(), own_names.end(), qualified) == own_names.end()) {
    return "executes code built at run time";
  }
  if (matches_any(qualified, kDynamicImporters) && call.has_positional_argument && !call.first_string_argument) {
    return "imports a module whose name is computed at run time";
  }
  if (matches_any(qualified, kLibraryLoaders) && !refers_to_variant(call)) {
    return "loads a native library that is not located through the package's own path";
  }
  if (matches_any(qualified, kOpeners) && call.first_string_argument &&
      outside_temporary_directories(*call.first_string_argument)) {
    if (auto mode = write_mode(call))
      return "writes to " + *call.first_string_argument + " (mode " + *mode + "), outside a temporary directory";
  }
  return std::nullopt;
}

class ExecutesOrFetches final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext&,
                  FindingSink& sink) const override {
    const auto targets = imported_name_targets(file);
    for (const PythonCall& call : file.calls) {
      const std::string qualified = qualified_callee(targets, call.callee);
      const std::optional<std::string> risk = risk_of(call, qualified, file);
      if (!risk) continue;
      const std::string resolved = qualified == call.callee ? "" : " (" + qualified + ")";
      sink.report(python_place(variant, file, call.line),
                  "`" + call.callee + "(...)`" + resolved + " " + *risk +
                      "; kernel code may only compute with torch and its own native module");
    }
  }

  RuleInfo info_{"KP006",
                 "Code that executes or fetches at import or call time",
                 Severity::warning,
                 R"doc(Flags calls that run other code or reach outside the kernel: eval/exec/compile,
os.system, os.popen, os.exec*/os.spawn*, subprocess, socket, urllib,
http.client, requests, pickle/marshal/shelve loading, importlib.import_module
or __import__ with a computed name, ctypes/cffi/torch.ops.load_library
loading of a library not located through the package's own `__file__`, and
`open()` of an absolute path outside /tmp, /var/tmp or /dev/shm for writing.
Callees are resolved through the file's imports (`from subprocess import run`
makes `run(...)` a subprocess call).

Severity: warning; error under `--security` (the Hub-side profile, where
kernels are audited before anyone runs them, raises it through the policy;
a policy file's `[severity]` table can do the same: `KP006 = "error"`).

Why: loading a kernel should only register ops. Code that runs programs,
downloads, deserialises pickles or writes into the user's file system is a
supply-chain risk and breaks offline and sandboxed use.

Fix: ship what is needed inside the variant and load it relative to
`__file__`; compute with torch.
)doc",
                 R"ex(import subprocess
subprocess.run(["nvidia-smi"])      # at import time)ex",
                 R"ex(# query the device through Torch, when needed, inside a function
def device_name() -> str:
    return torch.cuda.get_device_name())ex",
                 8.0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kp006_executes_or_fetches() { return std::make_unique<ExecutesOrFetches>(); }

}  // namespace kcheck
