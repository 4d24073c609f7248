#pragma once
#include <string>
#include <vector>

namespace kcheck {

// The files the builder writes for a variant with id `id`, as text.

// registration.h: TORCH_LIBRARY_EXPAND / REGISTER_EXTENSION for the binding sources.
std::string registration_header();

// _ops.py: imports the native module, `ops` = torch.ops.<id>, add_op_namespace_prefix.
std::string ops_module(const std::string& id);

// _ops.py of a Python-only variant (torch-<backend>): the namespace
// _<module>_<backend>_<unique> with the backend detected from the running
// Torch (tpu, neuron, cuda, rocm, metal, xpu, cpu: build-variants.md §3.3).
std::string python_only_ops_module(const std::string& module, const std::string& unique);

// <module>/__init__.py: the compatibility package re-exporting the top-level
// package; `public_names` is the top-level __all__ when it is a literal.
std::string compatibility_package(const std::vector<std::string>& public_names);

// Linker version script exporting PyInit_<id> alone.
std::string export_map(const std::string& id);

}  // namespace kcheck
