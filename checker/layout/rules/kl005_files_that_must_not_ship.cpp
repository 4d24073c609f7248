#include <array>

#include "checker/support/text_scan.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

// core, core.<pid> or vgcore.<pid>.
bool is_core_dump_name(std::string_view name) {
  if (name == "core") return true;
  if (!name.starts_with("core.") && !name.starts_with("vgcore.")) return false;
  return text::consists_of(name.substr(name.find('.') + 1), text::is_digit);
}

// What kind of stray file a path component is, or nullptr when it is fine.
const char* stray_kind(std::string_view component, bool is_directory) {
  if (is_directory) {
    if (component == "__pycache__") return "Python bytecode cache";
    if (component == "CMakeFiles") return "CMake build intermediates";
    if (component == ".git" || component == ".hg" || component == ".svn") return "version-control data";
    return nullptr;
  }
  if (component.ends_with(".pyc") || component.ends_with(".pyo")) return "Python bytecode";
  if (component.ends_with(".o") || component.ends_with(".obj") || component == "CMakeCache.txt" ||
      component == "cmake_install.cmake" || component.ends_with(".ninja") || component == "Makefile")
    return "build intermediate";
  if (component.ends_with("~") || component.ends_with(".swp") || component.ends_with(".swo") ||
      component.starts_with(".#") || component == ".DS_Store")
    return "editor or OS file";
  if (component == ".gitignore" || component == ".gitattributes" || component == ".gitmodules")
    return "version-control file";
  if (is_core_dump_name(component)) return "core dump";
  return nullptr;
}

class FilesThatMustNotShip final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope == AuditScope::module) return;
    for (const VariantFacts& variant : context.tree.variants) {
      std::string reported_directory;  // report a stray directory once, not its contents
      for (const FileEntry& file : variant.files) {
        if (!reported_directory.empty() && file.relative_path.starts_with(reported_directory + "/")) continue;
        std::string_view path = file.relative_path;
        std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
        const char* kind = stray_kind(name, file.kind == FileKind::directory);
        if (!kind) continue;
        if (file.kind == FileKind::directory) reported_directory = file.relative_path;
        sink.report({.variant = variant.directory_name, .file = variant.report_path(file.relative_path)},
                    std::string(kind) + " '" + file.relative_path + "' must not ship in a variant");
      }
    }
  }

 private:
  RuleInfo info_{"KL005",
                 "Files that must not ship",
                 Severity::warning,
                 R"(A variant should contain only what the loader needs: the Python package,
the native module, data files and metadata.json. Bytecode caches
(__pycache__, *.pyc) are ignored by the digest and never downloaded by the
loader; build intermediates (*.o, CMakeFiles/), editor and VCS files and core
dumps only make the upload larger and can leak the builder's environment.

Fix: delete them before uploading (kernel-builder and `kcheck build` never
write them), e.g. `find build -name __pycache__ -prune -exec rm -rf {} +`.
)",
                 R"ex(build/torch213-cxx11-cpu-x86_64-linux/__pycache__/_ops.cpython-311.pyc)ex",
                 R"ex(rm -r build/*/__pycache__      # and upload without it
# or, when a file is meant to ship, kcheck.toml:
# ignore = [{code = "KL005", path = "build/*/notes.txt", reason = "..."}])ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl005_files_that_must_not_ship() { return std::make_unique<FilesThatMustNotShip>(); }

}  // namespace kcheck
