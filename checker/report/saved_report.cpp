#include "checker/report/saved_report.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace kcheck {

Report load_saved_report(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) throw std::runtime_error(path.string() + ": not JSON, so not a kcheck JSON report");
  const nlohmann::json::json_pointer tool_name("/tool/name");
  if (!json.is_object() || !json.contains(tool_name) || json.at(tool_name) != "kcheck")
    throw std::runtime_error(path.string() + ": not a kcheck JSON report");
  try {
    return report_from_json(json);
  } catch (const std::exception& error) {
    throw std::runtime_error(path.string() + ": " + error.what());
  }
}

}  // namespace kcheck
