#pragma once
// The libraries and symbols of a Mach-O image, read by LIEF in the module
// kcheck_macho_symbols (checker/macho/symbols_module/), on the slice the
// load-command walk accepted.
#include <cstdint>
#include <string>
#include <vector>

#include "checker/kinds/macho_facts.h"

#define KCHECK_MACHO_SYMBOLS_EXPORT __attribute__((visibility("default")))

extern "C" {
// Fills facts->libraries, imported_symbols and exported_symbols, or facts->error.
KCHECK_MACHO_SYMBOLS_EXPORT void kcheck_read_macho_symbols(const std::vector<std::uint8_t>* bytes, const char* name,
                                                           kcheck::MachOFacts* facts);
}

namespace kcheck {

// Loads the module on first use (next to the kcheck executable, else where
// the build put it) and calls it; throws std::runtime_error naming the paths
// tried when it cannot be loaded. A portable kcheck calls the linked-in reader.
void read_macho_symbols(const std::vector<std::uint8_t>& bytes, const std::string& name, MachOFacts& facts);

}  // namespace kcheck
