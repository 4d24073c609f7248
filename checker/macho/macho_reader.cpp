#include <LIEF/LIEF.hpp>

#include <fstream>
#include <iterator>

#include "checker/core/bounded_read.h"
#include "checker/macho/macho_facts.h"
#include "checker/macho/macho_load_commands.h"

namespace kcheck {
namespace {

// nlist n_type bits (mach-o/nlist.h).
constexpr std::uint8_t kDebugEntry = 0xe0, kPrivateExternal = 0x10, kTypeMask = 0x0e, kExternal = 0x01;
constexpr std::uint8_t kUndefined = 0x0, kDefinedInSection = 0xe;

std::string without_underscore(const std::string& name) { return name.starts_with("_") ? name.substr(1) : name; }

// LIEF parses from memory, so the file is read whole once (darwin kernel
// modules are a few MB; LIEF would copy it into memory anyway), within a bound.
constexpr std::uint64_t kMaxMachOBytes = std::uint64_t{1} << 30;

std::optional<std::vector<std::uint8_t>> read_file(const std::filesystem::path& file, std::string& error) {
  std::optional<std::string> text = read_bounded_file(file, kMaxMachOBytes, error);
  if (!text) return std::nullopt;
  return std::vector<std::uint8_t>(text->begin(), text->end());
}

// Libraries and symbols through LIEF, on the slice read_macho_header chose.
void read_symbols(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file, MachOFacts& facts) {
  try {
    // quick(): no walk of the dyld rebase/bind opcodes, which kcheck does not
    // need and where LIEF 0.9 loops for minutes on crafted counts (fuzz_macho).
    std::unique_ptr<LIEF::MachO::FatBinary> binaries = LIEF::MachO::Parser::parse(bytes, file.filename().string(), LIEF::MachO::ParserConfig::quick());
    if (!binaries || binaries->size() == 0) {
      facts.error = "LIEF found no Mach-O image";
      return;
    }
    const LIEF::MachO::Binary& binary = binaries->at(0);
    for (const LIEF::MachO::DylibCommand& library : binary.libraries()) facts.libraries.push_back(library.name());
    // From the nlist symbol table: LIEF 0.9's export-trie view comes back
    // empty on every parse after the first one in a process.
    for (const LIEF::MachO::Symbol& symbol : binary.symbols()) {
      const std::uint8_t type = symbol.type();
      if ((type & kDebugEntry) != 0 || (type & kExternal) == 0 || (type & kPrivateExternal) != 0) continue;
      if ((type & kTypeMask) == kUndefined) facts.imported_symbols.push_back(without_underscore(symbol.name()));
      else if ((type & kTypeMask) == kDefinedInSection) facts.exported_symbols.push_back(without_underscore(symbol.name()));
    }
  } catch (const std::exception& error) {
    facts.error = std::string("cannot read symbols: ") + error.what();
  }
}

}  // namespace

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
  read_symbols(*bytes, file, facts);
  return facts;
}

}  // namespace kcheck
