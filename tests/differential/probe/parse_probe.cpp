// Test-only: runs kcheck's parse step on files and prints one JSON line per
// file, {"file": ..., "accepted": bool, "reason": ...}, for the differential
// test against the kernels loader and CPython (loader_differential.py).
//   kcheck_parse_probe metadata FILE...   metadata.json: JSON and schema (KM002)
//   kcheck_parse_probe python FILE...     a Python source: does it parse (KP007)
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "checker/metadata/metadata_reader.h"
#include "checker/kinds/python_facts.h"

namespace {

std::string read_bytes(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json probe_metadata(const std::string& text) {
  // backend.archs not required: the loader's reader does not require them.
  const kcheck::MetadataFacts facts = kcheck::parse_metadata_text(text, false);
  if (!facts.parse_error.empty()) return {{"accepted", false}, {"reason", facts.parse_error}};
  if (!facts.schema_errors.empty())
    return {{"accepted", false},
            {"reason", facts.schema_errors.front().pointer + ": " + facts.schema_errors.front().message}};
  return {{"accepted", true}, {"reason", ""}};
}

nlohmann::json probe_python(const std::string& text) {
  const kcheck::PythonFileFacts facts = kcheck::analyse_python_source(text, "probe.py");
  return {{"accepted", facts.parsed}, {"reason", facts.parse_error}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: kcheck_parse_probe metadata|python FILE...\n";
    return 2;
  }
  const std::string kind = argv[1];
  if (kind != "metadata" && kind != "python") {
    std::cerr << "unknown kind " << kind << "\n";
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    const std::string text = read_bytes(argv[i]);
    nlohmann::json line = kind == "metadata" ? probe_metadata(text) : probe_python(text);
    line["file"] = argv[i];
    std::cout << line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) << "\n";
  }
  return 0;
}
