#include <algorithm>

#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

// Why a search path entry leads outside the variant, or nothing when it
// stays inside. `depth` is how many directories the module lies below the
// variant root.
std::optional<std::string> why_entry_leaves_variant(std::string_view entry, std::size_t depth) {
  std::string_view rest;
  if (entry.starts_with("$ORIGIN")) {
    rest = entry.substr(7);
  } else if (entry.starts_with("${ORIGIN}")) {
    rest = entry.substr(9);
  } else if (entry.starts_with("/")) {
    return std::string("is absolute: it names a directory of the machine that built the module");
  } else {
    return std::string("is relative to the process's working directory, not to the module");
  }
  long level = static_cast<long>(depth);
  while (!rest.empty()) {
    rest.remove_prefix(std::min(rest.find_first_not_of('/'), rest.size()));
    const std::string_view component = rest.substr(0, rest.find('/'));
    rest.remove_prefix(component.size());
    if (component == "..")
      --level;
    else if (!component.empty() && component != ".")
      ++level;
    if (level < 0) return std::string("climbs out of the variant directory through $ORIGIN/..");
  }
  return std::nullopt;
}

class RpathLeavesVariant final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      const auto depth =
          static_cast<std::size_t>(std::count(view.module.relative_path.begin(), view.module.relative_path.end(), '/'));
      check_paths("RPATH", elf.rpath, depth, view, sink);
      check_paths("RUNPATH", elf.runpath, depth, view, sink);
    });
  }

 private:
  static void check_paths(const std::string& kind, const std::vector<std::string>& entries, std::size_t depth,
                          const NativeModuleView& view, FindingSink& sink) {
    for (const std::string& entry : entries) {
      if (const auto why = why_entry_leaves_variant(entry, depth)) {
        sink.report(view.place(entry),
                    kind + " entry '" + entry + "' " + *why + "; only $ORIGIN paths inside the variant are allowed");
      }
    }
  }

  RuleInfo info_{"KE010",
                 "RPATH/RUNPATH absolute or leaving the variant directory",
                 Severity::error,
                 R"(RPATH and RUNPATH tell the loader where to look for the module's
dependencies. An absolute entry (/usr/local/cuda/lib64, /home/ci/build/lib)
names a directory of the build machine: on a user's machine it finds nothing,
or worse, an unrelated library of the same name. An entry that climbs out of
the variant ($ORIGIN/../../lib) depends on files outside the downloaded
variant, and a relative entry without $ORIGIN depends on the working
directory. Only $ORIGIN-relative paths inside the variant are allowed.

Fix: drop the RPATH (Torch's libraries are already loaded when the kernel
is imported): CMake's CMAKE_SKIP_RPATH or `patchelf --remove-rpath`.
)",
                 R"ex(readelf -d _k.abi3.so  ->  RUNPATH [/usr/local/cuda/lib64])ex",
                 R"ex(# drop -Wl,-rpath; Torch has loaded the CUDA libraries before the module
readelf -d _k.abi3.so  ->  (no RPATH or RUNPATH))ex",
                 7.5};
};

}  // namespace

std::unique_ptr<Rule> make_ke010_rpath_leaves_variant() { return std::make_unique<RpathLeavesVariant>(); }

}  // namespace kcheck
