#include "checker/metadata/metadata_reader.h"

#include "checker/support/bounded_read.h"
#include "checker/support/name_shapes.h"
#include "checker/support/text_scan.h"

#include "checker/metadata/ascii_text.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <set>
#include <new>

namespace kcheck {
namespace {

using nlohmann::json;

constexpr std::array kBackendTypes{"cann", "cpu", "cuda", "metal", "neuron", "rocm", "tpu", "xpu"};
constexpr std::array kTopLevelKeys{"id",
                                   "name",
                                   "version",
                                   "license",
                                   "upstream",
                                   "source",
                                   "python-depends",
                                   "python-depends-backends",
                                   "kernel-depends",
                                   "backend",
                                   "digest",
                                   "provenance"};
constexpr std::array kGitUrlSchemes{"https", "http", "git", "ssh", "git+ssh", "git+https", "git+http"};

template <std::size_t N>
bool contains(const std::array<const char*, N>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::string join(const auto& values) {
  std::string joined;
  for (std::string_view value : values) joined += (joined.empty() ? "" : ", ") + std::string(value);
  return joined;
}

bool is_kernel_name(std::string_view name) { return is_kernel_name_shape(name); }

bool is_full_commit_id(std::string_view commit) {
  return (commit.size() == 40 || commit.size() == 64) &&
         std::all_of(commit.begin(), commit.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// The scheme of "<scheme>:..." (^[A-Za-z][A-Za-z0-9+.-]*:), or nullopt.
std::optional<std::string_view> url_scheme(std::string_view text) {
  text::Scanner scan(text);
  if (!scan.take_one(text::is_alpha)) return std::nullopt;
  scan.take_while([](char c) { return text::is_alnum(c) || c == '+' || c == '.' || c == '-'; });
  if (!scan.take(':')) return std::nullopt;
  return text.substr(0, scan.position() - 1);
}

// build-toml.md §5.2: a URL with an allowed scheme, else SCP-like host:path.
// Returns the reason when `text` is not a usable git URL.
std::optional<std::string> git_url_problem(std::string_view text) {
  if (const std::optional<std::string_view> written_scheme = url_scheme(text)) {
    const std::string scheme = ascii_lowercase(std::string(*written_scheme));
    if (!contains(kGitUrlSchemes, scheme))
      return "unsupported scheme '" + scheme + "' (allowed: " + join(kGitUrlSchemes) + ")";
    if (text.size() == written_scheme->size() + 1) return "nothing after the scheme";
    return std::nullopt;
  }
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size() || text[colon + 1] == '/') {
    return "not a URL with a scheme and not an SCP-like user@host:path";
  }
  return std::nullopt;
}

// Finds the first key that occurs twice in one object, as a SAX handler over
// the text (nlohmann's parse callback walks a parent's members each time an
// object closes: quadratic on `[{},{},...]`). Readers disagree on such a
// document (the kernels loader refuses a repeated known field, Python's json
// keeps the last value, kcheck would judge one of them), so it is refused as a whole.
class DuplicateKeyFinder : public nlohmann::json_sax<json> {
 public:
  const std::optional<std::string>& found() const { return found_; }

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    OpenContainer& object = open_.back();
    if (object.keys.insert(key).second) {
      object.token = key;
      return true;
    }
    std::string pointer;
    for (std::size_t i = 0; i + 1 < open_.size(); ++i) pointer += "/" + json_pointer_token(open_[i].token);
    found_ = "key \"" + key + "\" occurs twice in the object at " + (pointer.empty() ? "the top level" : pointer);
    return false;  // stop: one is enough
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  struct OpenContainer {
    bool is_object = false;
    std::set<std::string> keys;
    std::string token;  // the current key, or the current element's index
    std::size_t next_index = 0;
  };

  // A value or container starts: in an array it is the next element.
  bool value() {
    if (!open_.empty() && !open_.back().is_object) open_.back().token = std::to_string(open_.back().next_index++);
    return true;
  }
  bool open(bool is_object) {
    value();
    open_.push_back({.is_object = is_object});
    return true;
  }
  bool close() {
    if (!open_.empty()) open_.pop_back();
    return true;
  }

  std::vector<OpenContainer> open_;
  std::optional<std::string> found_;
};

// Walks the document once, filling the typed view and every schema problem.
class MetadataSchemaReader {
 public:
  MetadataSchemaReader(MetadataFacts& facts, bool archs_required) : facts_(facts), archs_required_(archs_required) {}

  void read(const json& root) {
    if (!root.is_object()) {
      problem("", std::string("the top level must be an object, found ") + root.type_name());
      return;
    }
    facts_.id = required_string(root, "", "id");
    read_name(root);
    read_version(root);
    read_license(root);
    facts_.upstream = optional_git_url(root, "upstream");
    facts_.source = optional_git_url(root, "source");
    facts_.python_depends = string_array(root, "", "python-depends", Presence::required);
    read_python_depends_backends(root);
    read_kernel_depends(root);
    read_backend(root);
    read_provenance(root);
    read_digest(root);
    read_unknown_keys(root);
    if (problems_not_listed_ > 0) {
      facts_.schema_errors.push_back({"", std::to_string(problems_not_listed_) +
                                              " more schema problems not listed (kcheck lists the first " +
                                              std::to_string(kMaxMetadataProblems) + ")"});
    }
  }

 private:
  enum class Presence { required, optional };

  // Problems past kMaxMetadataProblems are counted, not kept: a hostile file
  // can break the schema once per byte.
  void problem(std::string pointer, std::string message) {
    if (facts_.schema_errors.size() >= kMaxMetadataProblems) {
      ++problems_not_listed_;
      return;
    }
    facts_.schema_errors.push_back({std::move(pointer), std::move(message)});
  }

  // Unknown keys are warnings, one each up to the bound; more than that is
  // no typo but a file built to be large, an error.
  void read_unknown_keys(const json& root) {
    std::size_t beyond_bound = 0;
    for (const auto& [key, value] : root.items()) {
      if (contains(kTopLevelKeys, key)) continue;
      if (facts_.unknown_keys.size() < kMaxMetadataProblems)
        facts_.unknown_keys.push_back(key);
      else
        ++beyond_bound;
    }
    if (beyond_bound > 0) {
      problem("", "more than " + std::to_string(kMaxMetadataProblems) + " unknown top-level keys (" +
                      std::to_string(beyond_bound) + " not listed)");
    }
  }

  // Reports an array longer than kMaxMetadataListEntries; its first entries are still read.
  bool within_list_bound(const json& array, const std::string& pointer) {
    if (array.size() <= kMaxMetadataListEntries) return true;
    problem(pointer, "has " + std::to_string(array.size()) + " entries, more than the bound of " +
                         std::to_string(kMaxMetadataListEntries) + "; the rest are not read");
    return false;
  }

  static std::string child(const std::string& pointer, std::string_view key) {
    return pointer + "/" + json_pointer_token(key);
  }

  // The member `key` of `object`, or nullptr when absent. A `null` member is
  // absent for optional keys (the reference reader treats it so).
  const json* member(const json& object, const std::string& pointer, std::string_view key, Presence presence) {
    const auto found = object.find(key);
    if (found == object.end() || (found->is_null() && presence == Presence::optional)) {
      if (presence == Presence::required) problem(child(pointer, key), "required key is missing");
      return nullptr;
    }
    return &*found;
  }

  bool expect_type(const json& value, bool ok, const std::string& pointer, std::string_view expected) {
    if (!ok) problem(pointer, "must be " + std::string(expected) + ", found " + value.type_name());
    return ok;
  }

  std::optional<std::string> string_value(const json& object, const std::string& pointer, std::string_view key,
                                          Presence presence) {
    const json* value = member(object, pointer, key, presence);
    if (value == nullptr || !expect_type(*value, value->is_string(), child(pointer, key), "a string"))
      return std::nullopt;
    return value->get<std::string>();
  }

  std::optional<std::string> required_string(const json& object, const std::string& pointer, std::string_view key) {
    auto text = string_value(object, pointer, key, Presence::required);
    if (text && text->empty()) problem(child(pointer, key), "must not be empty");
    return text;
  }

  std::optional<std::vector<std::string>> string_list(const json& value, const std::string& pointer) {
    if (!expect_type(value, value.is_array(), pointer, "an array of strings")) return std::nullopt;
    std::vector<std::string> strings;
    within_list_bound(value, pointer);
    for (std::size_t index = 0; index < std::min(value.size(), kMaxMetadataListEntries); ++index) {
      const json& item = value[index];
      if (expect_type(item, item.is_string(), pointer + "/" + std::to_string(index), "a string")) {
        strings.push_back(item.get<std::string>());
      }
    }
    return strings;
  }

  std::optional<std::vector<std::string>> string_array(const json& object, const std::string& pointer,
                                                       std::string_view key, Presence presence) {
    const json* value = member(object, pointer, key, presence);
    if (value == nullptr) return std::nullopt;
    return string_list(*value, child(pointer, key));
  }

  void read_name(const json& root) {
    facts_.name = required_string(root, "", "name");
    if (facts_.name && !facts_.name->empty() && !is_kernel_name(*facts_.name)) {
      problem("/name", "'" + *facts_.name +
                           "' is not a kernel name: lowercase letters, digits and '-', starting with a letter and "
                           "not ending with '-' (^[a-z][-a-z0-9]*[a-z0-9]$)");
    }
  }

  void read_version(const json& root) {
    const json* value = member(root, "", "version", Presence::required);
    if (value == nullptr) return;
    const bool non_negative_integer =
        value->is_number_unsigned() || (value->is_number_integer() && value->get<long long>() >= 0);
    if (!non_negative_integer) {
      problem("/version", "must be an integer >= 0, found " + value->dump());
      return;
    }
    facts_.version = value->get<long long>();
  }

  void read_license(const json& root) { facts_.license = required_string(root, "", "license"); }

  std::optional<std::string> optional_git_url(const json& root, std::string_view key) {
    auto url = string_value(root, "", key, Presence::optional);
    if (!url) return std::nullopt;
    if (auto why = git_url_problem(*url)) problem(child("", key), "'" + *url + "' is not a git URL: " + *why);
    return url;
  }

  void read_python_depends_backends(const json& root) {
    const json* value = member(root, "", "python-depends-backends", Presence::optional);
    if (value == nullptr || !expect_type(*value, value->is_object(), "/python-depends-backends", "an object")) return;
    std::map<std::string, std::vector<std::string>> lists;
    for (const auto& [backend, names] : value->items()) {
      const std::string pointer = child("/python-depends-backends", backend);
      if (!contains(kBackendTypes, backend)) {
        problem(pointer, "'" + backend + "' is not a backend (allowed: " + join(kBackendTypes) + ")");
        continue;
      }
      if (auto list = string_list(names, pointer)) lists[backend] = std::move(*list);
    }
    facts_.python_depends_backends = std::move(lists);
  }

  void read_kernel_depends(const json& root) {
    const json* value = root.contains("kernel-depends") ? &root["kernel-depends"] : nullptr;
    if (value == nullptr || !expect_type(*value, value->is_array(), "/kernel-depends", "an array of objects")) return;
    within_list_bound(*value, "/kernel-depends");
    for (std::size_t index = 0; index < std::min(value->size(), kMaxMetadataListEntries); ++index) {
      read_kernel_dependency((*value)[index], "/kernel-depends/" + std::to_string(index));
    }
  }

  void read_kernel_dependency(const json& entry, const std::string& pointer) {
    if (!expect_type(entry, entry.is_object(), pointer, "an object {repo-id, version|revision}")) return;
    MetadataKernelDependency dependency;
    dependency.repo_id = required_string(entry, pointer, "repo-id").value_or("");
    if (const json* version = member(entry, pointer, "version", Presence::optional)) {
      if (expect_type(*version, version->is_number_unsigned(), child(pointer, "version"), "an integer >= 0")) {
        dependency.version = version->get<long long>();
      }
    }
    dependency.revision = string_value(entry, pointer, "revision", Presence::optional);
    const bool has_version = entry.contains("version"), has_revision = entry.contains("revision");
    if (has_version == has_revision) {
      problem(pointer, has_version ? "'version' and 'revision' are mutually exclusive"
                                   : "either 'version' or 'revision' must be specified");
    }
    for (const auto& [key, unused] : entry.items()) {
      if (key != "repo-id" && key != "version" && key != "revision") {
        problem(child(pointer, key), "unknown key '" + key + "' (allowed: repo-id, version, revision)");
      }
    }
    facts_.kernel_depends.push_back(std::move(dependency));
  }

  void read_backend(const json& root) {
    const json* backend = member(root, "", "backend", Presence::required);
    if (backend == nullptr || !expect_type(*backend, backend->is_object(), "/backend", "an object")) return;
    facts_.backend_type = string_value(*backend, "/backend", "type", Presence::required);
    if (facts_.backend_type && !contains(kBackendTypes, *facts_.backend_type)) {
      problem("/backend/type",
              "'" + *facts_.backend_type + "' is not a backend (allowed: " + join(kBackendTypes) + ")");
    }
    facts_.backend_archs = string_array(*backend, "/backend", "archs", Presence::optional);
    if (archs_required_ && !facts_.backend_archs && !backend->contains("archs")) {
      problem("/backend/archs",
              "required key 'archs' is missing: a compiled cuda or rocm variant lists the "
              "architectures it was built for");
    } else if (archs_required_ && backend->contains("archs") && (*backend)["archs"].is_null()) {
      problem("/backend/archs", "must be an array of strings for a compiled cuda or rocm variant, found null");
    }
  }

  // `commit` (or its legacy alias `sha`) and `dirty` of one provenance side.
  ProvenanceGitState read_git_state(const json& object, const std::string& pointer, Presence presence) {
    ProvenanceGitState state;
    if (object.contains("commit") && object.contains("sha")) {
      problem(child(pointer, "sha"), "'sha' and 'commit' both given (sha is a legacy alias of commit)");
    }
    const std::string commit_key = object.contains("sha") && !object.contains("commit") ? "sha" : "commit";
    for (const char* key : {commit_key.c_str(), "dirty"}) {
      if (object.contains(key) && object[key].is_null()) problem(child(pointer, key), "must not be null");
    }
    const bool has_commit = object.contains(commit_key), has_dirty = object.contains("dirty");
    if (presence == Presence::required || has_commit || has_dirty) {
      if (has_commit != has_dirty || !has_commit) {
        problem(pointer, "'" + commit_key + "' and 'dirty' must be specified together");
      }
    }
    if (has_commit && object[commit_key].is_string()) {
      const std::string commit = object[commit_key].get<std::string>();
      if (!is_full_commit_id(commit)) {
        problem(child(pointer, commit_key), "'" + commit + "' is not a full git commit id (40 or 64 hex digits)");
      } else {
        state.commit = ascii_lowercase(commit);
      }
    } else if (has_commit && !object[commit_key].is_null()) {
      expect_type(object[commit_key], false, child(pointer, commit_key), "a string");
    }
    if (has_dirty && !object["dirty"].is_null() &&
        expect_type(object["dirty"], object["dirty"].is_boolean(), child(pointer, "dirty"), "a boolean")) {
      state.dirty = object["dirty"].get<bool>();
    }
    return state;
  }

  void read_provenance(const json& root) {
    const json* value = member(root, "", "provenance", Presence::optional);
    if (value == nullptr || !expect_type(*value, value->is_object(), "/provenance", "an object")) return;
    ProvenanceFacts provenance;
    if (const json* builder = member(*value, "/provenance", "kernel-builder", Presence::required)) {
      const std::string pointer = "/provenance/kernel-builder";
      if (expect_type(*builder, builder->is_object(), pointer, "an object")) {
        provenance.builder_version = string_value(*builder, pointer, "version", Presence::required);
        provenance.builder = read_git_state(*builder, pointer, Presence::optional);
      }
    }
    if (const json* kernel = member(*value, "/provenance", "kernel", Presence::optional)) {
      if (expect_type(*kernel, kernel->is_object(), "/provenance/kernel", "an object")) {
        provenance.kernel = read_git_state(*kernel, "/provenance/kernel", Presence::required);
      }
    }
    facts_.provenance = std::move(provenance);
  }

  void read_digest(const json& root) {
    const json* value = member(root, "", "digest", Presence::optional);
    if (value == nullptr) return;
    facts_.digest_declared = true;
    if (!expect_type(*value, value->is_object(), "/digest", "an object {algorithm, files}")) return;
    auto algorithm = string_value(*value, "/digest", "algorithm", Presence::required);
    const json* files = member(*value, "/digest", "files", Presence::required);
    if (files == nullptr || !expect_type(*files, files->is_object(), "/digest/files", "an object path -> hash")) return;
    DeclaredDigest digest;
    bool hashes_are_strings = true;
    for (const auto& [path, hash] : files->items()) {
      if (!expect_type(hash, hash.is_string(), child("/digest/files", path), "a base64 string")) {
        hashes_are_strings = false;
        continue;
      }
      digest.files.emplace(path, hash.get<std::string>());
    }
    if (!algorithm || !hashes_are_strings) return;
    digest.algorithm = std::move(*algorithm);
    facts_.digest = std::move(digest);
  }

  MetadataFacts& facts_;
  bool archs_required_;
  std::size_t problems_not_listed_ = 0;
};

// Whether arrays and objects nest deeper than `max_depth` anywhere in `text`
// (outside strings). Checked before parsing: every recursive walk of the
// document (dump, comparisons) would otherwise be a stack risk. A linear
// scan, not nlohmann's parse callback, whose bookkeeping rescans a parent's
// members after each child and so is quadratic in the members of one object.
bool nests_deeper_than(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// nlohmann reports a 1-based byte count; editors want line and column.
void locate_byte(std::string_view text, std::size_t byte, int& line, int& column) {
  const std::size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  line = 1;
  column = 1;
  for (std::size_t index = 0; index < end; ++index) {
    if (text[index] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." -> "syntax error ..."
std::string syntax_error_reason(const std::string& what) {
  const std::size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

bool requires_archs(const VariantFacts& variant) {
  return variant.name && variant.name->compiled() &&
         (variant.name->backend == "cuda" || variant.name->backend == "rocm");
}

// Only what the walk vetted (a regular file, or a link to one inside the
// variant) is opened: a FIFO would block, a link out of the variant would read
// what kcheck was not given.
std::optional<std::string> read_whole_file(const FileEntry& entry, std::string& error) {
  if (!entry.readable_file()) {
    error = entry.read_error.empty() ? "not a regular file inside the variant" : "not readable: " + entry.read_error;
    return std::nullopt;
  }
  auto text = read_bounded_file(entry.path, kMaxMetadataBytes, error);
  if (!text) error = "not readable: " + error;
  return text;
}

}  // namespace

std::string json_pointer_token(std::string_view key) {
  std::string token;
  for (char c : key) {
    if (c == '~')
      token += "~0";
    else if (c == '/')
      token += "~1";
    else
      token += c;
  }
  return token;
}

bool is_cuda_capability(std::string_view arch) { return is_cuda_capability_shape(arch); }

bool is_rocm_arch(std::string_view arch) { return is_rocm_arch_shape(arch); }

MetadataFacts parse_metadata_text(std::string_view text, bool archs_required) {
  MetadataFacts facts;
  facts.present = true;
  if (text.starts_with("\xEF\xBB\xBF")) {
    // JSON forbids it (RFC 8259 §8.1) and the kernels loader refuses it.
    facts.parse_error = "not valid JSON at line 1, column 1: the file starts with a UTF-8 byte order mark";
    facts.parse_error_line = facts.parse_error_column = 1;
    return facts;
  }
  try {
    if (nests_deeper_than(text, kMaxMetadataDepth)) {
      facts.parse_error = "not read: nested deeper than " + std::to_string(kMaxMetadataDepth) + " levels";
      return facts;
    }
    facts.document = json::parse(text.begin(), text.end());
    DuplicateKeyFinder duplicates;  // a second, linear pass over text that parsed
    json::sax_parse(text.begin(), text.end(), &duplicates);
    if (duplicates.found()) {
      facts.document = json();
      facts.parse_error = "not valid JSON for the kernels loader: " + *duplicates.found();
      return facts;
    }
  } catch (const json::parse_error& error) {
    locate_byte(text, error.byte, facts.parse_error_line, facts.parse_error_column);
    facts.parse_error = "not valid JSON at line " + std::to_string(facts.parse_error_line) + ", column " +
                        std::to_string(facts.parse_error_column) + ": " + syntax_error_reason(error.what());
    return facts;
  } catch (const json::exception& error) {
    // e.g. out_of_range 406, a number past double's range (found by fuzz_metadata).
    facts.parse_error = "not valid JSON: " + syntax_error_reason(error.what());
    return facts;
  }
  MetadataSchemaReader(facts, archs_required).read(facts.document);
  return facts;
}

MetadataFacts read_metadata_facts(const VariantFacts& variant) {
  const FileEntry* entry = variant.find_file("metadata.json");
  MetadataFacts facts;
  if (entry != nullptr) {
    std::string error;
    if (entry->kind == FileKind::directory) {
      facts.present = true;
      facts.parse_error = "a directory, not a file";
    } else if (auto text = read_whole_file(*entry, error)) {
      try {
        facts = parse_metadata_text(*text, requires_archs(variant));
      } catch (const std::bad_alloc&) {
        // The bounds above should make this unreachable; if memory still runs
        // out, this file is the finding and the rest of the tree is audited.
        facts = MetadataFacts{};
        facts.present = true;
        facts.parse_error = "not read: memory ran out while parsing it";
      }
    } else {
      facts.present = true;
      facts.parse_error = error;
    }
  }
  facts.relative_path = variant.report_path("metadata.json");
  return facts;
}

}  // namespace kcheck
