#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <sstream>

#include "checker/audit/audit.h"
#include "checker/audit/suppression_facts.h"
#include "checker/kinds/build_config_facts.h"
#include "checker/support/bounded_read.h"
#include "checker/support/name_shapes.h"
#include "checker/support/work_pool.h"
#include "checker/elf/needed_closure.h"
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

// Every ELF module's imports resolved against the libraries in `directories`
// (each library read once for the whole tree).
void resolve_needed_closures(TreeFacts& tree, const std::vector<fs::path>& directories) {
  LibraryIndex libraries(directories);
  for (VariantFacts& variant : tree.variants)
    for (const NativeModuleFacts& module : variant.native_modules)
      if (module.elf && module.elf->error.empty())
        variant.needed_closures.push_back(
            resolve_needed_closure(module.relative_path, *module.elf, variant.path, libraries));
}

// Runs the per-file analysers; results are stored per task, then moved into
// the variants in file order so the facts do not depend on thread timing.
NativeModuleFacts analyse_native_module(const FileTask& task, const ElfTables& elf_tables, WorkPool& pool) {
  NativeModuleFacts facts;
  facts.relative_path = task.file->relative_path;
  if (task.format == BinaryFormat::elf)
    facts.elf = read_elf_facts(task.file->path, elf_tables, &pool);
  else
    facts.macho = read_macho_facts(task.file->path);
  return facts;
}

// A native module kcheck failed on: KE007 reports it as not a usable module.
NativeModuleFacts native_analysis_failure(const FileTask& task, std::string reason) {
  NativeModuleFacts facts;
  facts.relative_path = task.file->relative_path;
  if (task.format == BinaryFormat::elf)
    facts.elf.emplace().error = std::move(reason);
  else
    facts.macho.emplace().error = std::move(reason);
  return facts;
}

// The optional ELF tables the selected rules read (RuleInfo::reads): a
// table none of them judges is not read.
ElfTables elf_tables_needed(OptionalFacts wanted) {
  return ElfTables{
      .torch_library_namespaces = wanted.has(OptionalFact::op_namespaces),
      .build_leaks = wanted.has(OptionalFact::build_leaks),
      .read_only_data = wanted.has(OptionalFact::read_only_data),
      .device_code = wanted.has(OptionalFact::device_code),
  };
}

// Cached facts read with fewer tables than this audit needs are a miss.
bool covers(const NativeModuleFacts& facts, const ElfTables& wanted) {
  return !facts.elf || !facts.elf->error.empty() || facts.elf->tables_read.covers(wanted);
}

// The facts of one file: from the cache when it knows them (and `usable`
// accepts them), else analysed (and offered to the cache).
template <typename Facts, typename Load, typename Store, typename Analyse, typename Usable>
Facts cached_or_analysed(FileFactsCache* cache, const FileEntry& file, Load load, Store store, Analyse analyse,
                         Usable usable) {
  if (!cache) return analyse();
  if (std::optional<Facts> cached = (cache->*load)(file); cached && usable(*cached)) return std::move(*cached);
  Facts facts = analyse();
  (cache->*store)(file, facts);
  return facts;
}

// The facts of one file, analysed (or from the cache); a failure is that
// file's finding this time, never a cache entry that would repeat it:
// analysed_or_failure wraps the cached analysis.
void analyse_file(const FileTask& task, const ElfTables& elf_tables, FileFactsCache* cache, WorkPool& pool,
                  PythonFileFacts& python, NativeModuleFacts& native) {
  if (task.format == BinaryFormat::none) {
    python = analysed_or_failure(
        [&] {
          return cached_or_analysed<PythonFileFacts>(
              cache, *task.file, &FileFactsCache::load_python, &FileFactsCache::store_python,
              [&] { return analyse_python_file(*task.file); }, [](const PythonFileFacts&) { return true; });
        },
        [&](std::string reason) { return python_analysis_failure(*task.file, std::move(reason)); });
    return;
  }
  native = analysed_or_failure(
      [&] {
        return cached_or_analysed<NativeModuleFacts>(
            cache, *task.file, &FileFactsCache::load_native, &FileFactsCache::store_native,
            [&] { return analyse_native_module(task, elf_tables, pool); },
            [&](const NativeModuleFacts& facts) { return covers(facts, elf_tables); });
      },
      [&](std::string reason) { return native_analysis_failure(task, std::move(reason)); });
}

// metadata.json of every variant (small: read one after the other).
void read_variant_metadata(TreeFacts& tree, const AuditOptions& options) {
  if (tree.scope == AuditScope::module) return;
  for (VariantFacts& variant : tree.variants) {
    options.deadline.check();
    variant.metadata = analysed_or_failure([&] { return read_metadata_facts(variant); },
                                           [](std::string reason) {
                                             MetadataFacts facts;  // KM002 reports it as a file that does not parse
                                             facts.present = true;
                                             facts.parse_error = std::move(reason);
                                             return facts;
                                           });
    variant.metadata.relative_path = variant.report_path("metadata.json");
  }
}

// A file one variant's digest verification needs hashed.
struct HashTask {
  std::size_t verification;  // index into the tree's verifications
  const FileEntry* file;
};

// Every file's analysis and every digest's hashing in one batch on `pool`,
// largest file first, so that the threads stay busy to the end. The digest
// is verified only when KM007, its one reader, runs: hashing every byte of
// a variant is most of an audit's reading. Results are stored per task,
// then moved into the variants in file order so the facts do not depend on
// thread timing.
void analyse_and_hash_files(TreeFacts& tree, const AuditOptions& options, FileFactsCache* cache, WorkPool& pool,
                            OptionalFacts wanted) {
  ProgressSink* progress = options.progress;
  const ElfTables elf_tables = elf_tables_needed(wanted);
  const bool digest_judged = wanted.has(OptionalFact::digest);
  const std::vector<FileTask> files = plan_file_tasks(tree);
  std::vector<DigestVerification> verifications(tree.variants.size());
  std::vector<HashTask> hashes;
  for (std::size_t v = 0; v < tree.variants.size(); ++v) {
    const VariantFacts& variant = tree.variants[v];
    if (tree.scope == AuditScope::module || !variant.metadata.present || !digest_judged) continue;
    verifications[v] = plan_digest_verification(variant, variant.metadata);
    if (verifications[v].algorithm)
      for (const FileEntry* file : verifications[v].to_hash) hashes.push_back({v, file});
  }

  std::vector<std::uint64_t> costs;
  costs.reserve(files.size() + hashes.size());
  for (const FileTask& task : files) costs.push_back(task.file->size);
  for (const HashTask& task : hashes) costs.push_back(task.file->size);
  std::vector<PythonFileFacts> python(files.size());
  std::vector<NativeModuleFacts> native(files.size());
  std::vector<std::optional<std::string>> hashed(hashes.size());
  std::vector<std::string> hash_errors(hashes.size());
  pool.run(WorkKind::leaf, costs, [&](std::size_t i) {
    options.deadline.check();
    if (i < files.size()) {
      report_progress(progress, ProgressCounter::files_scanned);
      analyse_file(files[i], elf_tables, cache, pool, python[i], native[i]);
      return;
    }
    const std::size_t h = i - files.size();
    hashed[h] = hash_of(*hashes[h].file, *verifications[hashes[h].verification].algorithm, cache, hash_errors[h]);
    report_progress(progress, ProgressCounter::bytes_hashed, hashes[h].file->size);
  });

  for (std::size_t i = 0; i < files.size(); ++i) {
    if (files[i].format == BinaryFormat::none)
      files[i].variant->python_files.push_back(std::move(python[i]));
    else
      files[i].variant->native_modules.push_back(std::move(native[i]));
  }
  std::vector<FileHashes> hashes_by_variant(tree.variants.size());
  for (std::size_t h = 0; h < hashes.size(); ++h) {
    FileHashes& variant_hashes = hashes_by_variant[hashes[h].verification];
    if (hashed[h])
      variant_hashes.hashes.emplace(hashes[h].file->relative_path, std::move(*hashed[h]));
    else
      variant_hashes.errors.emplace(hashes[h].file->relative_path, std::move(hash_errors[h]));
  }
  for (std::size_t v = 0; v < tree.variants.size(); ++v) {
    VariantFacts& variant = tree.variants[v];
    if (tree.scope == AuditScope::module || !variant.metadata.present || !digest_judged) continue;
    variant.digest = finish_digest_verification(std::move(verifications[v]), variant.metadata, hashes_by_variant[v]);
  }
}

// build.toml, with kcheck's own failure on it reported by KC001.
BuildConfigFacts read_build_config_guarded(const fs::path& kernel_dir) {
  return analysed_or_failure([&] { return read_build_config(kernel_dir); },
                             [&](std::string reason) {
                               BuildConfigFacts facts;
                               facts.kernel_dir = kernel_dir;
                               facts.present = true;
                               facts.read_error = std::move(reason);
                               return facts;
                             });
}

}  // namespace

TreeFacts collect_facts(const fs::path& input, const AuditOptions& options, const RuleRegistry& rules,
                        FileFactsCache* cache) {
  const OptionalFacts wanted = rules.optional_facts(options.selection);
  TreeFacts tree = discover_tree(input, options.limits);
  std::optional<WorkPool> own_pool;
  WorkPool& pool = options.pool ? *options.pool : own_pool.emplace(options.threads);
  read_variant_metadata(tree, options);
  analyse_and_hash_files(tree, options, cache, pool, wanted);
  if (tree.scope == AuditScope::tree) {
    // read_build_config says whether there is one (a link loop is one, unreadable).
    BuildConfigFacts config = read_build_config_guarded(tree.audited_root);
    if (config.present) tree.build_config = std::move(config);
  }
  read_suppression_facts(tree);
  if (!options.library_directories.empty() && wanted.has(OptionalFact::needed_closure))
    resolve_needed_closures(tree, options.library_directories);
  return tree;
}

TreeFacts collect_source_facts(const fs::path& kernel_dir) {
  std::error_code error;
  if (!fs::is_directory(kernel_dir, error)) throw InputError("not a directory: " + kernel_dir.string());
  TreeFacts tree;
  tree.scope = AuditScope::source;
  tree.collected = RuleNeeds::source;
  tree.audited_root = fs::absolute(kernel_dir).lexically_normal();
  tree.build_config = read_build_config_guarded(tree.audited_root);
  read_suppression_facts(tree);
  return tree;
}

namespace {

void read_source_registrations(TreeFacts& tree) {
  for (const ListedPath& listed : tree.build_config->listed_paths) {
    if (listed.is_include || listed.status != PathStatus::ok || !names_compiled_source(listed.path.value)) continue;
    std::string problem;
    const std::optional<std::string> text =
        read_inside_root(tree.audited_root, tree.audited_root / listed.path.value, kMaxParsedFileBytes, problem);
    if (!text) continue;  // KC003 judges the listed paths
    for (SourceRegistration& registration : find_source_registrations(*text, listed.path.value))
      tree.source_registrations.push_back(std::move(registration));
  }
}

// The Python package as each backend's variant will hold it.
void add_package_variants(TreeFacts& tree, const AuditOptions& options) {
  const BuildConfigFacts& config = *tree.build_config;
  if (!config.python_package || !config.python_package->init_exists || !config.general.name) return;
  const std::string& directory = config.python_package->directory;
  const fs::path package = tree.audited_root / directory;
  // Never a package reached through a link out of the repository (a pull
  // request's checkout must not make the audit quote files beside it).
  std::error_code error;
  const fs::path resolved = fs::canonical(package, error);
  const fs::path root = fs::canonical(tree.audited_root, error);
  if (error || !is_inside(resolved, root)) return;
  const std::vector<FileEntry> files = walk_variant(package, options.limits);
  std::vector<std::string> backends = config.general.backends.values();
  if (backends.empty()) backends.emplace_back();
  for (const std::string& backend : backends) {
    VariantFacts variant;
    variant.directory_name = backend.empty() ? directory : directory + " (" + backend + ")";
    variant.path = package;
    variant.relative_path = directory;
    VariantName name;
    name.backend = backend;
    variant.name = name;
    variant.metadata.name = config.general.name->value;
    variant.files = files;
    tree.variants.push_back(std::move(variant));
  }
}

}  // namespace

TreeFacts collect_source_audit_facts(const fs::path& kernel_dir, const AuditOptions& options,
                                     const RuleRegistry& rules) {
  TreeFacts tree = collect_source_facts(kernel_dir);
  add_package_variants(tree, options);
  std::optional<WorkPool> own_pool;
  WorkPool& pool = options.pool ? *options.pool : own_pool.emplace(options.threads);
  analyse_and_hash_files(tree, options, nullptr, pool, rules.optional_facts(options.selection));
  read_source_registrations(tree);
  return tree;
}

}  // namespace kcheck
