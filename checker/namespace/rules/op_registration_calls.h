#pragma once
// Which Python calls register an op (KO003, KO007): header-only, beside the rules that use it.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace kcheck {

// Registration helpers whose first argument names the op ("ns::name"), by
// their last name component, wherever they are imported from.
inline constexpr std::array<std::string_view, 7> kOpRegistrationHelpers = {
    "custom_op",         "triton_op",     "register_fake",          "register_kernel",
    "register_autograd", "register_vmap", "register_torch_dispatch"};
// torch.library functions whose first argument is a qualified op name or a namespace.
inline constexpr std::array<std::string_view, 4> kOpLibraryFunctions = {
    "torch.library.define", "torch.library.impl", "torch.library.Library", "torch.library.fallthrough_kernel"};

// `qualified`: the callee with its first component resolved through the file's imports.
inline bool is_op_registration(const std::string& qualified) {
  const std::string_view last = std::string_view(qualified).substr(qualified.rfind('.') + 1);
  return std::find(kOpRegistrationHelpers.begin(), kOpRegistrationHelpers.end(), last) !=
             kOpRegistrationHelpers.end() ||
         std::find(kOpLibraryFunctions.begin(), kOpLibraryFunctions.end(), qualified) != kOpLibraryFunctions.end();
}

}  // namespace kcheck
