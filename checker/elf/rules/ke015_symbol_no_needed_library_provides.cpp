#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string_view>

#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

// A family of symbols one set of libraries provides, known by the symbol's
// prefix and then an upper-case letter, as the headers name them (sources:
// cuda.h for the driver API `cu` + capital, cublas_api.h, cudnn.h, nccl.h,
// nvrtc.h). Only libraries nothing in a Torch process makes global: Torch
// loads libtorch_global_deps.so with RTLD_GLOBAL, and its libcudart (and, in
// a ROCm Torch, the HIP runtime) then resolves for every module, so the CUDA
// runtime and HIP families are not judged; Torch's own libraries are loaded
// locally, but a module that uses them names them in its build, and the
// families above are the ones a link forgets.
struct SymbolFamily {
  std::string_view what;
  std::string_view prefix;
  std::array<std::string_view, 2> libraries;  // globs of the libraries that provide it
  std::string_view fix;
};

constexpr std::array<SymbolFamily, 5> kFamilies = {{
    {"the CUDA driver API",
     "cu",
     {"libcuda.so*"},
     "link with -lcuda (the toolkit's stub lib64/stubs/libcuda.so; the driver provides libcuda.so.1 at run time), or "
     "get the entry point at run time with cudaGetDriverEntryPoint"},
    {"cuBLAS", "cublas", {"libcublas.so*", "libcublasLt.so*"}, "link -lcublas (CUDA::cublas)"},
    {"cuDNN", "cudnn", {"libcudnn*.so*"}, "link -lcudnn"},
    {"NCCL", "nccl", {"libnccl.so*"}, "link -lnccl"},
    {"NVRTC", "nvrtc", {"libnvrtc.so*"}, "link -lnvrtc (CUDA::nvrtc)"},
}};

const SymbolFamily* family_of(std::string_view symbol) {
  for (const SymbolFamily& family : kFamilies) {
    if (!symbol.starts_with(family.prefix)) continue;
    if (symbol.size() == family.prefix.size() ||
        !std::isupper(static_cast<unsigned char>(symbol[family.prefix.size()])))
      continue;
    return &family;
  }
  return nullptr;
}

bool provided_by_needed(const SymbolFamily& family, const std::vector<std::string>& needed) {
  return std::any_of(needed.begin(), needed.end(), [&](const std::string& library) {
    return std::any_of(family.libraries.begin(), family.libraries.end(),
                       [&](std::string_view pattern) { return !pattern.empty() && glob_match(pattern, library); });
  });
}

// The module's closure resolved against the libraries at hand, when it was
// and every library of it was found.
const NeededClosureFacts* complete_closure(const NativeModuleView& view) {
  for (const NeededClosureFacts& closure : view.variant.needed_closures)
    if (closure.module == view.module.relative_path) return closure.complete() ? &closure : nullptr;
  return nullptr;
}

std::string failure(const ElfFacts& elf, const std::string& symbol) {
  return elf.bind_now ? "dlopen fails with \"undefined symbol: " + symbol + "\""
                      : "the first call ends the process with a symbol lookup error";
}

// Every import resolved: each one no library of the closure defines.
void report_unresolved(const NativeModuleView& view, const ElfFacts& elf, const NeededClosureFacts& closure,
                       FindingSink& sink) {
  if (closure.unresolved.empty()) return;
  const SymbolFamily* family = family_of(closure.unresolved.front());
  sink.report(view.place(closure.unresolved.front()),
              "imports " + join_first(closure.unresolved, 3) +
                  ", which no library of its DT_NEEDED closure (with what `import torch` loads globally) defines; "
                  "searched " +
                  join_first(closure.searched, 6) + ": " + failure(elf, closure.unresolved.front()) +
                  ". Fix: " + (family ? std::string(family->fix) : "link the library that defines it, or define it"));
}

class SymbolNoNeededLibraryProvides final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      if (const NeededClosureFacts* closure = complete_closure(view)) {
        report_unresolved(view, elf, *closure, sink);
        return;
      }
      std::map<const SymbolFamily*, std::vector<std::string>> unprovided;
      for (const ElfImportedSymbol& symbol : elf.imports) {
        if (symbol.weak || !symbol.version.empty()) continue;  // a versioned symbol names its library
        const SymbolFamily* family = family_of(symbol.name);
        if (family && !provided_by_needed(*family, elf.needed)) unprovided[family].push_back(symbol.name);
      }
      for (const auto& [family, symbols] : unprovided) {
        const std::string needed = elf.needed.empty() ? "none" : join_first(elf.needed, elf.needed.size());
        std::string libraries;
        for (std::string_view pattern : family->libraries)
          if (!pattern.empty()) libraries += std::string(libraries.empty() ? "" : " or ") + std::string(pattern);
        sink.report(view.place(symbols.front()),
                    "imports " + join_first(symbols, 3) + " (" + std::string(family->what) +
                        ") but needs no library "
                        "that provides it (" +
                        libraries + "; it needs " + needed + "): " + failure(elf, symbols.front()) +
                        ". Fix: " + std::string(family->fix));
      }
    });
  }

 private:
  RuleInfo info_{"KE015",
                 "An undefined symbol no needed library provides",
                 Severity::error,
                 R"(Flags a native module that imports a symbol no library it needs provides.
With libraries at hand (`kcheck check --library-path DIR`; `kcheck build`
gives its Torch's and CUDA toolkit's), every non-weak, unversioned import
is resolved as the loader would: in the module's DT_NEEDED closure (found
in those directories and the system's, each library's `$ORIGIN` runpath
first) and in what `import torch` loads globally before any kernel
(libtorch_global_deps.so's closure); the Python C API (`Py*`) counts as
provided by the interpreter. Where a library of the closure is not found
there, or no directory was given, it judges by symbol family: a symbol of
a known library family (the CUDA driver API `cu` + capital, cuBLAS, cuDNN,
NCCL, NVRTC) while no library in its DT_NEEDED list is one that provides
that family.

Why: the loader resolves a module's undefined symbols in the libraries it
needs (and what is already loaded globally). Torch does not load libcuda
for its extensions, so a kernel calling `cuTensorMapEncodeTiled` without
`-lcuda` fails to import where it is linked with `-z now` ("undefined
symbol: cuTensorMapEncodeTiled"), and otherwise ends the process at the first
call. The link succeeded because a shared library may leave symbols
undefined. Weak symbols and versioned ones (whose version names their
library) are not judged. By family alone, a symbol of no known family is
not judged, nor are the CUDA runtime (`cuda*`) and the HIP runtime: Torch
loads them globally (libtorch_global_deps), so they resolve without being
needed.

Fix: link the library that provides it (the finding names it: `-lcuda` for
the driver API, whose stub the CUDA toolkit ships), or, for the driver API,
get the entry point at run time with `cudaGetDriverEntryPoint`.)",
                 R"(nm -D _k.abi3.so  ->  U cuTensorMapEncodeTiled
readelf -d _k.abi3.so  ->  NEEDED libc10.so, libtorch.so, libcudart.so.13)",
                 R"(nvcc ... -lcuda
readelf -d _k.abi3.so  ->  NEEDED libcuda.so.1, libc10.so, libtorch.so, libcudart.so.13)",
                 0,
                 RuleNeeds::build,
                 OptionalFact::needed_closure};
};

}  // namespace

std::unique_ptr<Rule> make_ke015_symbol_no_needed_library_provides() {
  return std::make_unique<SymbolNoNeededLibraryProvides>();
}

}  // namespace kcheck
