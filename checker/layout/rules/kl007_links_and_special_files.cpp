#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

// The problem with one entry, or "" when it is fine.
std::string entry_problem(const FileEntry& file) {
  if (!file.valid_utf8) return "path is not valid UTF-8";
  if (!file.read_error.empty()) return file.read_error;
  switch (file.kind) {
    case FileKind::symlink:
      if (file.link_loops) return "symbolic link loop (-> " + file.link_target + ")";
      if (file.link_escapes_variant) return "symbolic link points outside the variant (-> " + file.link_target + ")";
      return "";
    case FileKind::other:
      return "special file (FIFO, socket or device) in the variant";
    case FileKind::regular:
      if (file.hard_link_outside_variant)
        return "hard link shared with " + std::to_string(file.hard_links) + " names, some of them outside the variant";
      return "";
    case FileKind::directory:
      return "";
  }
  return "";
}

class LinksAndSpecialFiles final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants)
      for (const FileEntry& file : variant.files)
        if (std::string problem = entry_problem(file); !problem.empty())
          sink.report({.variant = variant.directory_name, .file = variant.report_path(file.relative_path)},
                      "'" + file.relative_path + "': " + problem);
  }

 private:
  RuleInfo info_{"KL007",
                 "Link, special file or path that cannot ship",
                 Severity::error,
                 R"(A variant is downloaded file by file and must be self-contained. A symbolic
link that points outside the variant (or loops), a hard link shared with
files elsewhere, a FIFO, socket or device node, an unreadable entry, or a
path that is not valid UTF-8 either cannot be uploaded, breaks on another
machine, or makes the checker read things it was not given. kcheck never
follows links out of the audited root.

Fix: replace links by copies of the files they point to, remove special
files, rename paths to UTF-8.
)",
                 R"ex(build/torch213-cxx11-cpu-x86_64-linux/libfoo.so -> /usr/lib/libfoo.so)ex",
                 R"ex(# ship a regular file (or drop the dependency)
cp -L /usr/lib/libfoo.so build/torch213-cxx11-cpu-x86_64-linux/libfoo.so)ex",
                 7.0};
};

}  // namespace

std::unique_ptr<Rule> make_kl007_links_and_special_files() { return std::make_unique<LinksAndSpecialFiles>(); }

}  // namespace kcheck
