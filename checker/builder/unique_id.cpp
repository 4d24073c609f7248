#include "checker/builder/unique_id.h"

#include <random>

#include "checker/builder/build_tool.h"

namespace kcheck {

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string random_base32_id() {
  std::random_device device;
  std::uint64_t bits = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  const char* alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  std::string id;
  for (int i = 0; i < 13; ++i) {  // 13 * 5 = 65 bits; the top group takes the last 4
    int shift = 64 - 5 * (i + 1);
    std::uint64_t group = shift >= 0 ? (bits >> shift) & 31 : (bits << -shift) & 31;
    id += alphabet[group];
  }
  return id;
}

UniqueMaterial unique_material_for(const std::filesystem::path& kernel_dir) {
  const std::string dir = kernel_dir.string();
  ProcessEnd prefix = run_build_tool({"git", "-C", dir, "rev-parse", "--show-prefix"});
  ProcessEnd tree = run_build_tool({"git", "-C", dir, "rev-parse", "HEAD:" + trimmed(prefix.output)});
  if (prefix.exit_code != 0 || tree.exit_code != 0 || trimmed(tree.output).size() < 7)
    return {random_base32_id(), "random", "", false};
  ProcessEnd status = run_build_tool({"git", "-C", dir, "status", "--porcelain", "--untracked-files=no", "--", "."});
  ProcessEnd head = run_build_tool({"git", "-C", dir, "rev-parse", "HEAD"});
  UniqueMaterial material;
  material.dirty = !trimmed(status.output).empty();
  material.unique = trimmed(tree.output).substr(0, 7) + (material.dirty ? "_dirty" : "");
  material.source = "git tree";
  material.commit = head.exit_code == 0 ? trimmed(head.output) : "";
  return material;
}

}  // namespace kcheck
