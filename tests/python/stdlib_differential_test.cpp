// kcheck's import list equals CPython's `ast` one for every file of the
// machine's standard library (module, names, level, line; in source order).
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "checker/kinds/python_facts.h"
#include "tests/python/python_test_support.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using testing::oracle_python;
using testing::read_file;
using testing::run_command;
using testing::shell_quote;

nlohmann::json imports_as_json(const PythonFileFacts& facts) {
  nlohmann::json imports = nlohmann::json::array();
  for (const PythonImport& import : facts.imports) {
    imports.push_back({import.module, import.names, import.level, import.line});
  }
  return imports;
}

TEST(StdlibDifferential, ImportsEqualAstForEveryStdlibFile) {
  const std::string python = oracle_python();
  const auto stdlib = run_command(python + " -c 'import sysconfig;print(sysconfig.get_paths()[\"stdlib\"])'");
  ASSERT_EQ(stdlib.status, 0) << "cannot ask " << python << " for its stdlib";
  const fs::path stdlib_root = stdlib.output.substr(0, stdlib.output.find_last_not_of('\n') + 1);
  // The oracle's answer is kept per stdlib and reused while the script is
  // unchanged: parsing the whole stdlib with `ast` is the slow half.
  const fs::path oracle_out =
      fs::path(KCHECK_BINARY_DIR) /
      ("python-stdlib-ast-imports-" + std::to_string(std::hash<std::string>{}(stdlib_root.string())) + ".json");
  const fs::path script = fs::path(KCHECK_SOURCE_DIR) / "tests/python/ast_imports.py";
  if (!fs::exists(oracle_out) || fs::last_write_time(oracle_out) < fs::last_write_time(script)) {
    ASSERT_EQ(run_command(python + " " + shell_quote(script.string()) + " " + shell_quote(stdlib_root.string()) + " " +
                          shell_quote(oracle_out.string()))
                  .status,
              0);
  }
  const nlohmann::json oracle = nlohmann::json::parse(read_file(oracle_out));
  ASSERT_GT(oracle.size(), 500u) << "expected the whole standard library under " << stdlib_root;

  int compared = 0, skipped = 0, differences = 0;
  for (const auto& [relative, expected] : oracle.items()) {
    if (expected.contains("error")) {
      ++skipped;  // `ast` itself rejects it (lib2to3 and tokenizer test data)
      continue;
    }
    ++compared;
    const PythonFileFacts facts = analyse_python_source(read_file(stdlib_root / relative), relative);
    if (!facts.parsed) {
      ++differences;
      ADD_FAILURE() << relative << ": kcheck reports a syntax error at line " << facts.parse_error_line << ": "
                    << facts.parse_error;
      continue;
    }
    const nlohmann::json actual = imports_as_json(facts);
    if (actual != expected["imports"]) {
      ++differences;
      ADD_FAILURE() << relative << ":\n  ast:    " << expected["imports"].dump() << "\n  kcheck: " << actual.dump();
    }
  }
  std::cout << "stdlib differential: " << compared << " files compared, " << skipped
            << " skipped (ast cannot parse them), " << differences << " differences\n";
  EXPECT_EQ(differences, 0);
  RecordProperty("files_compared", compared);
  RecordProperty("files_skipped", skipped);
}

}  // namespace
}  // namespace kcheck
