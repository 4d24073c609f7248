#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

#include "checker/audit/audit.h"
#include "checker/audit/suppression_facts.h"
#include "checker/config/build_config_facts.h"
#include "checker/core/bounded_read.h"
#include "checker/core/parallel.h"
#include "checker/layout/tree_walker.h"
#include "checker/metadata/digest.h"
#include "checker/metadata/metadata_reader.h"

namespace kcheck {

namespace {

namespace fs = std::filesystem;

enum class BinaryFormat { none, elf, macho };

BinaryFormat sniff_binary_format(const fs::path& path) {
  std::array<unsigned char, 4> magic{};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(magic.data()), magic.size())) return BinaryFormat::none;
  if (magic == std::array<unsigned char, 4>{0x7f, 'E', 'L', 'F'}) return BinaryFormat::elf;
  std::uint32_t word = 0;
  std::memcpy(&word, magic.data(), sizeof word);
  for (std::uint32_t macho : {0xfeedfaceu, 0xfeedfacfu, 0xcefaedfeu, 0xcffaedfeu, 0xcafebabeu, 0xbebafecau})
    if (word == macho) return BinaryFormat::macho;
  return BinaryFormat::none;
}

bool has_native_module_name(std::string_view path) {
  return path.ends_with(".so") || path.ends_with(".pyd") || path.ends_with(".dylib") ||
         path.find(".so.") != std::string_view::npos;
}

// A Python source, read within kMaxParsedFileBytes; one that cannot be read
// is a file that does not parse (KP007), never an empty module.
PythonFileFacts analyse_python_file(const FileEntry& file) {
  std::string error;
  if (std::optional<std::string> text = read_bounded_file(file.path, kMaxParsedFileBytes, error))
    return analyse_python_source(*text, file.relative_path);
  PythonFileFacts facts;
  facts.relative_path = file.relative_path;
  facts.parsed = false;
  facts.parse_error = "not read: " + error;
  return facts;
}

// kcheck's own failure on one file (an analyser that threw: a bug, or memory
// exhausted) becomes that file's finding, through the fact its parse-error
// rule reads; the rest of the tree is still audited.
template <typename Analyse, typename OnFailure>
auto analysed_or_failure(Analyse analyse, OnFailure on_failure) -> decltype(analyse()) {
  std::string reason;
  try {
    return analyse();
  } catch (const AuditTimeout&) {
    throw;  // the repository's budget, not this file's failure
  } catch (const std::exception& error) {
    reason = error.what();
  } catch (...) {
    reason = "an unknown error";
  }
  return on_failure("not analysed: kcheck failed on this file (" + reason + ")");
}

PythonFileFacts python_analysis_failure(const FileEntry& file, std::string reason) {
  PythonFileFacts facts;
  facts.relative_path = file.relative_path;
  facts.parsed = false;
  facts.parse_error = std::move(reason);
  return facts;
}

// One unit of per-file work and where its result goes.
struct FileTask {
  VariantFacts* variant;
  const FileEntry* file;
  BinaryFormat format;  // none: a Python file
};

std::vector<FileTask> plan_file_tasks(TreeFacts& tree) {
  std::vector<FileTask> tasks;
  for (VariantFacts& variant : tree.variants) {
    for (const FileEntry& file : variant.files) {
      if (!file.readable_file()) continue;
      if (file.relative_path.ends_with(".py")) {
        tasks.push_back({&variant, &file, BinaryFormat::none});
        continue;
      }
      BinaryFormat format = sniff_binary_format(file.path);
      if (format == BinaryFormat::none && has_native_module_name(file.relative_path)) format = BinaryFormat::elf;
      if (format != BinaryFormat::none) tasks.push_back({&variant, &file, format});
    }
  }
  return tasks;
}

// Runs the per-file analysers; results are stored per task, then moved into
// the variants in file order so the facts do not depend on thread timing.
NativeModuleFacts analyse_native_module(const FileTask& task, const ElfReadOptions& elf_options) {
  NativeModuleFacts facts;
  facts.relative_path = task.file->relative_path;
  if (task.format == BinaryFormat::elf) facts.elf = read_elf_facts(task.file->path, elf_options);
  else facts.macho = read_macho_facts(task.file->path);
  return facts;
}

// A native module kcheck failed on: KE007 reports it as not a usable module.
NativeModuleFacts native_analysis_failure(const FileTask& task, std::string reason) {
  NativeModuleFacts facts;
  facts.relative_path = task.file->relative_path;
  if (task.format == BinaryFormat::elf) facts.elf.emplace().error = std::move(reason);
  else facts.macho.emplace().error = std::move(reason);
  return facts;
}

// Only KE012 reads the strings of .rodata: skip them when it does not run.
ElfReadOptions elf_read_options(const AuditOptions& options) {
  return ElfReadOptions{.scan_read_only_data = options.selection.selects("KE012")};
}

// Cached facts read with fewer options than this audit needs are a miss.
bool covers(const NativeModuleFacts& facts, const ElfReadOptions& elf_options) {
  return !facts.elf || !facts.elf->error.empty() || !elf_options.scan_read_only_data || facts.elf->read_only_data_scanned;
}

// The facts of one file: from the cache when it knows them (and `usable`
// accepts them), else analysed (and offered to the cache).
template <typename Facts, typename Load, typename Store, typename Analyse, typename Usable>
Facts cached_or_analysed(FileFactsCache* cache, const FileEntry& file, Load load, Store store, Analyse analyse, Usable usable) {
  if (!cache) return analyse();
  if (std::optional<Facts> cached = (cache->*load)(file); cached && usable(*cached)) return std::move(*cached);
  Facts facts = analyse();
  (cache->*store)(file, facts);
  return facts;
}

void analyse_files(TreeFacts& tree, const AuditOptions& options, FileFactsCache* cache) {
  const unsigned threads = options.threads;
  ProgressSink* progress = options.progress;
  const ElfReadOptions elf_options = elf_read_options(options);
  std::vector<FileTask> tasks = plan_file_tasks(tree);
  std::vector<PythonFileFacts> python(tasks.size());
  std::vector<NativeModuleFacts> native(tasks.size());
  parallel_for(tasks.size(), threads, [&](std::size_t i) {
    const FileTask& task = tasks[i];
    options.deadline.check();
    report_progress(progress, ProgressCounter::files_scanned);
    // A failure is that file's finding this time, never a cache entry that
    // would repeat it: analysed_or_failure wraps the cached analysis.
    if (task.format == BinaryFormat::none) {
      python[i] = analysed_or_failure(
          [&] {
            return cached_or_analysed<PythonFileFacts>(
                cache, *task.file, &FileFactsCache::load_python, &FileFactsCache::store_python,
                [&] { return analyse_python_file(*task.file); }, [](const PythonFileFacts&) { return true; });
          },
          [&](std::string reason) { return python_analysis_failure(*task.file, std::move(reason)); });
      return;
    }
    native[i] = analysed_or_failure(
        [&] {
          return cached_or_analysed<NativeModuleFacts>(
              cache, *task.file, &FileFactsCache::load_native, &FileFactsCache::store_native,
              [&] { return analyse_native_module(task, elf_options); },
              [&](const NativeModuleFacts& facts) { return covers(facts, elf_options); });
        },
        [&](std::string reason) { return native_analysis_failure(task, std::move(reason)); });
  });
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (tasks[i].format == BinaryFormat::none) tasks[i].variant->python_files.push_back(std::move(python[i]));
    else tasks[i].variant->native_modules.push_back(std::move(native[i]));
  }
}

// What verifying a variant's digest reads: the files the digest covers.
std::uint64_t covered_bytes(const VariantFacts& variant) {
  std::uint64_t bytes = 0;
  for (const FileEntry* file : digest_covered_files(variant)) bytes += file->size;
  return bytes;
}

// The digest is verified only when KM007, its one reader, runs: hashing
// every byte of a variant is most of an audit's reading.
void analyse_metadata(TreeFacts& tree, const AuditOptions& options, FileFactsCache* cache, bool digest_judged) {
  if (tree.scope == AuditScope::module) return;
  const unsigned threads = options.threads;
  ProgressSink* progress = options.progress;
  for (VariantFacts& variant : tree.variants) {
    options.deadline.check();
    variant.metadata = analysed_or_failure([&] { return read_metadata_facts(variant); }, [](std::string reason) {
      MetadataFacts facts;  // KM002 reports it as a file that does not parse
      facts.present = true;
      facts.parse_error = std::move(reason);
      return facts;
    });
    variant.metadata.relative_path = variant.report_path("metadata.json");
    if (!variant.metadata.present || !digest_judged) continue;
    variant.digest = verify_digest(variant, variant.metadata, threads, cache, options.deadline);
    report_progress(progress, ProgressCounter::bytes_hashed, covered_bytes(variant));
  }
}

// build.toml, with kcheck's own failure on it reported by KC001.
BuildConfigFacts read_build_config_guarded(const fs::path& kernel_dir) {
  return analysed_or_failure([&] { return read_build_config(kernel_dir); }, [&](std::string reason) {
    BuildConfigFacts facts;
    facts.kernel_dir = kernel_dir;
    facts.present = true;
    facts.read_error = std::move(reason);
    return facts;
  });
}

}  // namespace

TreeFacts collect_facts(const fs::path& input, const AuditOptions& options, FileFactsCache* cache) {
  TreeFacts tree = discover_tree(input, options.limits);
  tree.repo_id = options.repo_id;
  analyse_files(tree, options, cache);
  analyse_metadata(tree, options, cache, options.selection.selects("KM007"));
  if (tree.scope == AuditScope::tree) {
    // read_build_config says whether there is one (a link loop is one, unreadable).
    BuildConfigFacts config = read_build_config_guarded(tree.audited_root);
    if (config.present) tree.build_config = std::move(config);
  }
  read_suppression_facts(tree);
  return tree;
}

TreeFacts collect_source_facts(const fs::path& kernel_dir) {
  std::error_code error;
  if (!fs::is_directory(kernel_dir, error)) throw InputError("not a directory: " + kernel_dir.string());
  TreeFacts tree;
  tree.scope = AuditScope::source;
  tree.audited_root = fs::absolute(kernel_dir).lexically_normal();
  tree.build_config = read_build_config_guarded(tree.audited_root);
  read_suppression_facts(tree);
  return tree;
}

}  // namespace kcheck
