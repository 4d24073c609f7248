#include "checker/scan/report_directory.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "checker/metadata/digest.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

// Longer names get cut: a file name is at most 255 bytes, and the hash
// suffix and the extension must still fit.
constexpr std::size_t kMaxReadableStem = 120;
constexpr std::size_t kHashSuffixLength = 12;
constexpr const char* kScanDocumentStem = "scan";

bool is_kept(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; }

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A name as the file system may hold it, and whether it lost anything of the
// original (then two originals could give it, so it takes the hash suffix).
struct ReadableStem {
  std::string stem;
  bool changed = false;
};

void append_encoded(std::string_view text, bool slash_separates, ReadableStem& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : text) {
    if (slash_separates && c == '/') {
      out.stem += "--";
    } else if (is_kept(c) && !(c == '.' && out.stem.empty())) {  // no hidden file, no "." or ".."
      out.stem += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out.stem += {'_', kHex[byte >> 4], kHex[byte & 0xf]};
      out.changed = true;
    }
  }
}

ReadableStem readable_stem(const RepositoryReport& repository) {
  ReadableStem out;
  append_encoded(repository.id, true, out);
  if (!repository.revision.empty()) {
    out.stem += '@';
    append_encoded(repository.revision, false, out);
  }
  if (out.stem.empty() || out.stem.front() == '@') {
    out.stem.insert(0, "repository");
    out.changed = true;
  }
  if (out.stem.size() > kMaxReadableStem) {
    out.stem.resize(kMaxReadableStem);
    out.changed = true;
  }
  return out;
}

// 12 characters of the URL-safe base64 SHA-256 of the original id and revision.
std::string hash_suffix(const RepositoryReport& repository) {
  std::string hash = hash_bytes(repository.id + '\0' + repository.revision, DigestAlgorithm::sha256);
  std::replace(hash.begin(), hash.end(), '+', '-');
  std::replace(hash.begin(), hash.end(), '/', '_');
  return "-" + hash.substr(0, kHashSuffixLength);
}

std::map<std::string, int> count_lowercase(const std::vector<std::string>& names) {
  std::map<std::string, int> counts;
  for (const std::string& name : names) ++counts[lowercase(name)];
  return counts;
}

// The last resort, for names that still meet after the hash suffix (a
// repository named like another's suffixed name, or a hash collision): the
// later ones in order get "-2", "-3", ... so no report overwrites another.
void number_remaining_collisions(std::vector<std::string>& stems) {
  std::set<std::string> all;
  for (const std::string& stem : stems) all.insert(lowercase(stem));
  all.insert(kScanDocumentStem);
  std::set<std::string> assigned{kScanDocumentStem};
  for (std::string& stem : stems) {
    if (assigned.contains(lowercase(stem))) {
      std::string numbered;
      for (int n = 2;; ++n) {
        numbered = stem + "-" + std::to_string(n);
        if (!all.contains(lowercase(numbered))) break;
      }
      stem = numbered;
      all.insert(lowercase(stem));
    }
    assigned.insert(lowercase(stem));
  }
}

std::string write_file(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return out ? "" : "cannot write the file";
}

}  // namespace

std::vector<std::string> report_file_stems(const std::vector<RepositoryReport>& repositories) {
  std::vector<ReadableStem> readable;
  std::vector<std::string> stems;
  for (const RepositoryReport& repository : repositories) {
    readable.push_back(readable_stem(repository));
    stems.push_back(readable.back().stem);
  }
  const std::map<std::string, int> counts = count_lowercase(stems);
  for (std::size_t i = 0; i < repositories.size(); ++i) {
    const std::string key = lowercase(stems[i]);
    if (readable[i].changed || counts.at(key) > 1 || key == kScanDocumentStem) stems[i] += hash_suffix(repositories[i]);
  }
  number_remaining_collisions(stems);
  return stems;
}

std::vector<ReportWriteFailure> write_report_directory(
    const ScanReport& scan, const fs::path& directory,
    const std::function<std::string(const RepositoryReport&)>& render, const std::string& extension) {
  std::vector<ReportWriteFailure> failures;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) return {{directory, "cannot create the directory: " + error.message()}};
  const std::vector<std::string> stems = report_file_stems(scan.repositories);
  auto write = [&](const fs::path& file, const std::function<std::string()>& text) {
    std::string reason;
    try {
      reason = write_file(file, text());
    } catch (const std::exception& failure) {  // a report that cannot be rendered loses only itself
      reason = failure.what();
    }
    if (!reason.empty()) failures.push_back({file, reason});
  };
  for (std::size_t i = 0; i < scan.repositories.size(); ++i) {
    const RepositoryReport& repository = scan.repositories[i];
    if (!repository.error.empty()) continue;  // the scan document says why it was not audited
    write(directory / (stems[i] + "." + extension), [&] { return render(repository); });
  }
  write(directory / (std::string(kScanDocumentStem) + ".json"),
        [&] { return scan_report_to_json(scan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"; });
  return failures;
}

}  // namespace kcheck
