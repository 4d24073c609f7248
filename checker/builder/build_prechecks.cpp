#include "checker/builder/build_prechecks.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <string_view>
#include <tuple>

#include "checker/kinds/python_facts.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 6> kRegistrationDecorators = {
    "custom_op", "triton_op", "register_kernel", "register_fake", "register_vmap", "register_torch_dispatch"};

std::string_view last_component(std::string_view dotted) { return dotted.substr(dotted.rfind('.') + 1); }

bool registers_an_op(const PythonCall& call) {
  return std::find(kRegistrationDecorators.begin(), kRegistrationDecorators.end(), last_component(call.callee)) !=
         kRegistrationDecorators.end();
}

}  // namespace

std::string stable_abi_problem(const KernelSource& kernel, const std::string& backend, const TorchInstallation& torch) {
  auto stable_abi = kernel.stable_abi.find(backend);
  if (stable_abi == kernel.stable_abi.end()) return {};
  const Version used({torch.version.major(), torch.version.minor()});
  if (!(used < stable_abi->second)) return {};
  return "Torch " + used.str() + " is older than the stable-ABI version " + stable_abi->second.str() +
         " that build.toml sets for " + backend +
         " ([torch] stable-abi); build with Torch >= " + stable_abi->second.str();
}

std::vector<UnprefixedOpRegistration> unprefixed_op_registrations(const fs::path& package_dir) {
  std::vector<UnprefixedOpRegistration> found;
  std::error_code error;
  for (fs::recursive_directory_iterator it(package_dir, error), end; !error && it != end; it.increment(error)) {
    if (it->path().filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".py") continue;
    std::ifstream in(it->path(), std::ios::binary);
    const std::string source{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const std::string relative = it->path().lexically_relative(package_dir).generic_string();
    for (const PythonCall& call : analyse_python_source(source, relative).calls) {
      if (!call.is_decorator || !call.at_top_level || !call.has_positional_argument || !registers_an_op(call)) continue;
      if (last_component(call.first_argument_callee) == "add_op_namespace_prefix") continue;
      found.push_back({relative, call.line, call.callee});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return std::tie(a.file, a.line) < std::tie(b.file, b.line); });
  return found;
}

}  // namespace kcheck
