#include <dlfcn.h>

#include <fstream>
#include <stdexcept>
#include <iterator>

#include "checker/support/bounded_read.h"
#include "checker/kinds/macho_facts.h"
#include "checker/macho/macho_load_commands.h"
#include "checker/macho/macho_symbols.h"

namespace kcheck {
namespace {

// LIEF parses from memory, so the file is read whole once (darwin kernel
// modules are a few MB; LIEF would copy it into memory anyway), within a bound.
constexpr std::uint64_t kMaxMachOBytes = std::uint64_t{1} << 30;

std::optional<std::vector<std::uint8_t>> read_file(const std::filesystem::path& file, std::string& error) {
  std::optional<std::string> text = read_bounded_file(file, kMaxMachOBytes, error);
  if (!text) return std::nullopt;
  return std::vector<std::uint8_t>(text->begin(), text->end());
}

#ifndef KCHECK_MACHO_SYMBOLS_LINKED
using ReadMachOSymbols = void (*)(const std::vector<std::uint8_t>*, const char*, MachOFacts*);

// The module beside the running executable only: never a path fixed when
// kcheck was built, which whoever can create it later would have kcheck load
// (issue #28 item 8). The build puts a copy beside the test programs.
std::vector<std::filesystem::path> symbols_module_candidates() {
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(self.parent_path() / KCHECK_MACHO_SYMBOLS_MODULE_NAME);
  return candidates;
}

struct LoadedSymbolsReader {
  ReadMachOSymbols read = nullptr;
  std::string error;  // why it could not be loaded
};

LoadedSymbolsReader load_symbols_reader() {
  LoadedSymbolsReader loaded;
  std::string tried;
  for (const std::filesystem::path& candidate : symbols_module_candidates()) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(candidate, error)) {
      tried += (tried.empty() ? "" : ", ") + candidate.string() + " (absent)";
      continue;
    }
    void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += (tried.empty() ? "" : ", ") + candidate.string() + " (" + ::dlerror() + ")";
      continue;
    }
    loaded.read = reinterpret_cast<ReadMachOSymbols>(::dlsym(handle, "kcheck_read_macho_symbols"));
    if (loaded.read != nullptr) return loaded;
    tried += (tried.empty() ? "" : ", ") + candidate.string() + " (no kcheck_read_macho_symbols)";
  }
  loaded.error = "kcheck's Mach-O symbol reader could not be loaded: " + tried;
  return loaded;
}
#endif

}  // namespace

void read_macho_symbols(const std::vector<std::uint8_t>& bytes, const std::string& name, MachOFacts& facts) {
#ifdef KCHECK_MACHO_SYMBOLS_LINKED
  kcheck_read_macho_symbols(&bytes, name.c_str(), &facts);
#else
  // The process's one copy of the loaded module, made by the first Mach-O
  // file (thread-safe static initialisation) and never unloaded.
  static const LoadedSymbolsReader reader = load_symbols_reader();
  // kcheck's own installation is broken, not the file: the audit reports
  // that kcheck failed on it (never that the module is not Mach-O).
  if (reader.read == nullptr) throw std::runtime_error(reader.error);
  reader.read(&bytes, name.c_str(), &facts);
#endif
}

MachOFacts read_macho_facts(const std::filesystem::path& file) {
  MachOFacts facts;
  std::string error;
  const auto bytes = read_file(file, error);
  if (!bytes) {
    facts.error = "cannot read the file: " + error;
    return facts;
  }
  const MachOHeaderFacts header = read_macho_header(std::as_bytes(std::span(*bytes)));
  facts.arch = header.arch;
  facts.minimum_macos = header.minimum_macos;
  if (!header.error.empty()) {
    facts.error = header.error;
    return facts;  // never hand a malformed image to LIEF
  }
  read_macho_symbols(*bytes, file.filename().string(), facts);
  return facts;
}

}  // namespace kcheck
