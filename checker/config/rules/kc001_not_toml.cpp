#include "checker/config/rules/config_rule_table.h"
#include "checker/config/rules/config_rule_support.h"

namespace kcheck {
namespace {

class NotToml final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const BuildConfigFacts* config = readable_build_config(context.tree);
    if (!config) return;
    if (!config->read_error.empty()) sink.report(config_place(*config, {}), config->read_error);
    if (!config->parse_error.empty())
      sink.report(config_place(*config, {config->parse_error_line, config->parse_error_column}),
                  "build.toml is not valid TOML (line " + std::to_string(config->parse_error_line) + ", column " +
                      std::to_string(config->parse_error_column) + "): " + config->parse_error);
  }

 private:
  RuleInfo info_{"KC001",
                 "build.toml cannot be read or is not valid TOML",
                 Severity::error,
                 R"(kernel-builder parses build.toml as TOML 1.0 before it checks anything
else; a file that is not TOML stops every build. kcheck reports the parser's
message with the line and column where it failed (or why the file could not
be read), and checks nothing else in the file.

Fix: correct the syntax at the reported position. Common causes: an
unquoted string, a missing closing bracket or quote, a key defined twice,
a table header written twice.
)",
                 R"ex([general]
name = relu          # strings need quotes)ex",
                 R"ex([general]
name = "relu")ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kc001_not_toml() { return std::make_unique<NotToml>(); }

}  // namespace kcheck
