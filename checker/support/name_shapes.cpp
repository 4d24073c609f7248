#include "checker/support/name_shapes.h"

#include "checker/support/text_scan.h"

namespace kcheck {

bool is_kernel_name_shape(std::string_view name) {
  auto lower_digit_or_dash = [](char c) { return text::is_lower(c) || text::is_digit(c) || c == '-'; };
  return name.size() >= 2 && text::is_lower(name.front()) && name.back() != '-' &&
         text::consists_of(name, lower_digit_or_dash);
}

bool is_cuda_capability_shape(std::string_view capability) {
  text::Scanner scan(capability);
  if (scan.take_while(text::is_digit).empty() || !scan.take('.') || scan.take_while(text::is_digit).empty())
    return false;
  if (!scan.take('a')) scan.take('f');
  scan.take("+PTX");
  return scan.done();
}

bool is_rocm_arch_shape(std::string_view arch) {
  text::Scanner scan(arch);
  if (!scan.take("gfx") || scan.take_while(text::is_digit).empty()) return false;
  scan.take_one(text::is_lower);
  return scan.done();
}

bool names_compiled_source(std::string_view path) {
  static constexpr std::string_view kExtensions[] = {".c",  ".cc",  ".cpp", ".cxx", ".cu",  ".cuh", ".h",
                                                     ".hh", ".hpp", ".hxx", ".inl", ".hip", ".mm",  ".metal"};
  for (std::string_view extension : kExtensions)
    if (path.ends_with(extension)) return true;
  return false;
}

}  // namespace kcheck
