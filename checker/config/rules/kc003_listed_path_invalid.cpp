#include "checker/config/rules/config_rule_table.h"
#include "checker/config/rules/config_rule_support.h"

namespace kcheck {
namespace {

std::string why(const ListedPath& listed) {
  switch (listed.status) {
    case PathStatus::absolute:
      return "is absolute; write it relative to the kernel root";
    case PathStatus::escapes_root:
      return "leaves the kernel directory; list only files inside it";
    case PathStatus::missing:
      return "does not exist in the kernel directory";
    case PathStatus::not_a_file:
      return "is a directory; `src` lists files";
    case PathStatus::not_a_directory:
      return "is not a directory; `include` lists directories";
    case PathStatus::ok:
      break;
  }
  return "";
}

class ListedPathInvalid final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const BuildConfigFacts* config = judgeable_build_config(context.tree);
    if (!config) return;
    for (const ListedPath& listed : config->listed_paths)
      if (listed.status != PathStatus::ok)
        sink.report(config_place(*config, listed.path.position),
                    "\"" + listed.path.value + "\" in `" + listed.path.key + "` " + why(listed));
  }

 private:
  RuleInfo info_{"KC003",
                 "A source or include path in build.toml is missing or outside the kernel",
                 Severity::error,
                 R"(Every `src` and `include` entry of [torch], [tvm-ffi] and [kernel.<name>]
is a path relative to the kernel root. The builder copies the kernel source
tree into a sandbox, so a missing file fails the build, and an absolute path
or one that leaves the kernel directory (`../`, or a link out of it) makes
the build depend on the machine it runs on. `src` entries must be files,
`include` entries directories.

Fix: add the file, correct the path, or move what it names into the kernel
directory and list it relative to the root.
)",
                 R"ex([kernel.relu]
backend = "cuda"
depends = ["torch"]
src = ["relu_kernel/relu.cu", "../common/util.h"]   # leaves the kernel)ex",
                 R"ex(# copy util.h into the kernel directory
[kernel.relu]
backend = "cuda"
depends = ["torch"]
src = ["relu_kernel/relu.cu", "relu_kernel/util.h"])ex",
                 5.0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kc003_listed_path_invalid() { return std::make_unique<ListedPathInvalid>(); }

}  // namespace kcheck
