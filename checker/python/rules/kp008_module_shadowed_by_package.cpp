#include <algorithm>
#include <string_view>

#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/python/rules/python_rule_table.h"

namespace kcheck {
namespace {

// Python's path finder, for `import X` in a directory, takes a package
// `X/__init__.py` first, then an extension module `X.<tag>.so`, then `X.py`:
// a module with a package or an extension module of the same name beside it
// is never imported.
class ModuleShadowedByPackage final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants)
      for (const FileEntry& file : variant.files) {
        const std::string_view path = file.relative_path;
        if (!path.ends_with(".py") || file.kind == FileKind::directory) continue;
        const std::string stem(path.substr(0, path.size() - 3));  // "dir/X"
        const std::string name = stem.substr(stem.rfind('/') + 1);
        if (const std::string package = stem + "/__init__.py"; variant.find_file(package))
          sink.report({.variant = variant.directory_name, .file = variant.report_path(file.relative_path)},
                      file.relative_path + " is never imported: the package " + stem + "/ beside it takes the name `" +
                          name + "` (`from ." + name + " import ...` loads " + package + ")");
        else if (const std::string extension = extension_module(variant, stem); !extension.empty())
          sink.report({.variant = variant.directory_name, .file = variant.report_path(file.relative_path)},
                      file.relative_path + " is never imported: the extension module " + extension +
                          " beside it takes the name `" + name + "`");
      }
  }

 private:
  // `dir/X.so`, `dir/X.abi3.so` or `dir/X.cpython-<...>.so` beside
  // `dir/X.py`: the suffixes CPython loads extension modules by on Linux
  // (importlib.machinery.EXTENSION_SUFFIXES). The files are sorted
  // by path, so the names starting `dir/X.` are one run found by bisection:
  // a variant of many modules costs no walk per module.
  static std::string extension_module(const VariantFacts& variant, const std::string& stem) {
    const std::string prefix = stem + ".";
    auto entry =
        std::lower_bound(variant.files.begin(), variant.files.end(), prefix,
                         [](const FileEntry& file, const std::string& path) { return file.relative_path < path; });
    for (; entry != variant.files.end() && entry->relative_path.starts_with(prefix); ++entry) {
      const std::string_view rest = std::string_view(entry->relative_path).substr(prefix.size());  // "so", "abi3.so"
      const std::string_view tag = rest.ends_with(".so") ? rest.substr(0, rest.size() - 3) : std::string_view();
      const bool cpython_tag = tag.starts_with("cpython-") && tag.find_first_of("/.") == std::string_view::npos;
      if (rest == "so" || tag == "abi3" || cpython_tag) return entry->relative_path;
    }
    return "";
  }

  RuleInfo info_{"KP008",
                 "A Python module is shadowed by a package of the same name",
                 Severity::error,
                 R"(Flags a module `X.py` of a variant (or of the kernel's Python package,
before a build) next to a package `X/` (a directory with `__init__.py`) or an
extension module (`X.so`, `X.abi3.so`, `X.cpython-*.so`) in the same directory.

Why: Python's import system takes a package first, then an extension module,
then `X.py`, so `from .X import f` loads the package and the module's code
never runs: the import fails with "cannot import name 'f'" (or finds other
code under that name). A builder can cause it: the legacy compatibility
package `<module>/__init__.py` that older builders add to a variant shadows a
kernel file `<module>.py` (kernels-community's einops ships `einops.py`).

Fix: rename the module or the package; for a build, use a builder that does
not add the compatibility package over a module of that name.)",
                 R"(build/torch-cpu/__init__.py:   from .einops import rearrange
build/torch-cpu/einops.py      # never imported
build/torch-cpu/einops/__init__.py)",
                 R"(build/torch-cpu/__init__.py:   from .einops import rearrange
build/torch-cpu/einops.py      # the only `einops` of the package)",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kp008_module_shadowed_by_package() { return std::make_unique<ModuleShadowedByPackage>(); }

}  // namespace kcheck
