#include <algorithm>
#include <set>

#include "checker/metadata/metadata_reader.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

// Device code names a set of archs compiles to: "9.0a" -> sm_90a; "9.0+PTX"
// -> sm_90 and compute_90; "gfx90a" -> gfx90a.
struct DeviceTargets {
  std::set<std::string> cuda_sass, cuda_ptx, hip;
  bool empty() const { return cuda_sass.empty() && cuda_ptx.empty() && hip.empty(); }
};

DeviceTargets declared_targets(const std::vector<std::string>& archs, const std::string& backend) {
  DeviceTargets targets;
  for (const std::string& arch : archs) {
    if (backend == "rocm" && is_rocm_arch(arch)) targets.hip.insert(arch);
    if (backend != "cuda" || !is_cuda_capability(arch)) continue;
    const bool ptx = arch.ends_with("+PTX");
    std::string digits = ptx ? arch.substr(0, arch.size() - 4) : arch;
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    targets.cuda_sass.insert("sm_" + digits);
    if (ptx) targets.cuda_ptx.insert("compute_" + digits);
  }
  return targets;
}

// Device code embedded in the variant's native modules, from their fat binaries.
DeviceTargets embedded_targets(const VariantFacts& variant) {
  DeviceTargets targets;
  for (const NativeModuleFacts& module : variant.native_modules) {
    if (!module.elf || !module.elf->device_code || !module.elf->device_code->error.empty()) continue;
    const DeviceCodeFacts& code = *module.elf->device_code;
    targets.cuda_sass.insert(code.cuda_sass_archs.begin(), code.cuda_sass_archs.end());
    targets.cuda_ptx.insert(code.cuda_ptx_archs.begin(), code.cuda_ptx_archs.end());
    for (const std::string& target : code.hip_targets) targets.hip.insert(target.substr(0, target.find(':')));
  }
  return targets;
}

std::vector<std::string> difference(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::vector<std::string> only_in_a;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_in_a));
  return only_in_a;
}

// "declared but not embedded: sm_90; embedded but not declared: sm_86", or "" when equal.
std::string describe_difference(const std::set<std::string>& declared, const std::set<std::string>& embedded) {
  const auto not_embedded = difference(declared, embedded), not_declared = difference(embedded, declared);
  std::string text;
  if (!not_embedded.empty()) text += "declared but not embedded: " + comma_list(not_embedded);
  if (!not_declared.empty())
    text += (text.empty() ? "" : "; ") + std::string("embedded but not declared: ") + comma_list(not_declared);
  return text;
}

class BackendArchs final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    const MetadataFacts& metadata = variant.metadata;
    if (!metadata.backend_archs || !metadata.backend_type) return;
    const std::string& backend = *metadata.backend_type;
    if (backend != "cuda" && backend != "rocm") return;
    report_malformed(variant, backend, sink);
    report_device_code_difference(variant, backend, sink);
  }

 private:
  static void report_malformed(const VariantFacts& variant, const std::string& backend, FindingSink& sink) {
    const std::vector<std::string>& archs = *variant.metadata.backend_archs;
    for (std::size_t index = 0; index < archs.size(); ++index) {
      const bool well_formed = backend == "cuda" ? is_cuda_capability(archs[index]) : is_rocm_arch(archs[index]);
      if (well_formed) continue;
      const std::string expected = backend == "cuda"
                                       ? "a CUDA capability major.minor[a|f][+PTX], e.g. 8.0, 9.0a, 12.0+PTX"
                                       : "a ROCm arch gfx<digits>[letter], e.g. gfx90a, gfx942";
      sink.report(metadata_place(variant, "/backend/archs/" + std::to_string(index)),
                  "backend.archs entry '" + archs[index] + "' is not " + expected);
    }
  }

  static void report_device_code_difference(const VariantFacts& variant, const std::string& backend,
                                            FindingSink& sink) {
    const DeviceTargets embedded = embedded_targets(variant);
    if (embedded.empty()) return;  // no readable fat binary: nothing to compare with (KE014)
    const DeviceTargets declared = declared_targets(*variant.metadata.backend_archs, backend);
    std::string difference_text;
    if (backend == "cuda") {
      const std::string sass = describe_difference(declared.cuda_sass, embedded.cuda_sass);
      const std::string ptx = describe_difference(declared.cuda_ptx, embedded.cuda_ptx);
      difference_text = sass.empty() ? ptx : ptx.empty() ? sass : sass + "; PTX " + ptx;
    } else {
      difference_text = describe_difference(declared.hip, embedded.hip);
    }
    if (difference_text.empty()) return;
    sink.report(Severity::warning, metadata_place(variant, "/backend/archs"),
                "backend.archs differs from the device code in the native module (" + difference_text + ")");
  }

  RuleInfo info_{"KM010",
                 "backend.archs malformed or different from the embedded device code",
                 Severity::error,
                 R"(For CUDA and ROCm variants, `backend.archs` lists the GPU architectures the
native module was compiled for (build-variants.md §4.3). A CUDA entry is a
capability `major.minor`, optionally `a` or `f`, optionally `+PTX`
(^[0-9]+\.[0-9]+[af]?(\+PTX)?$: `8.0`, `9.0a`, `12.0+PTX`); a ROCm entry is
a gfx name (^gfx[0-9]+[a-z]?$: `gfx90a`, `gfx942`). A malformed entry is an
error: tools that pick a variant for a GPU cannot read it. When the native
module's fat binary can be read (KE014), archs that are declared but not
embedded, or embedded but not declared, are a warning: the metadata promises
GPUs the kernel does not run on, or hides ones it does (`X+PTX` declares SASS
sm_X and PTX compute_X).

Fix: let kernel-builder write `archs` (it records what it compiled); set the
capabilities in build.toml (`cuda-capabilities`, `rocm-archs`), not in
metadata.json.
)",
                 R"ex("backend": {"type": "cuda", "archs": ["8.0", "sm_90"]})ex",
                 R"ex("backend": {"type": "cuda", "archs": ["8.0", "9.0"]}     # the archs the module embeds)ex",
                 0,
                 RuleNeeds::build,
                 OptionalFact::device_code};
};

}  // namespace

std::unique_ptr<Rule> make_km010_backend_archs() { return std::make_unique<BackendArchs>(); }

}  // namespace kcheck
