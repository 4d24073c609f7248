#pragma once
#include <string>
#include <vector>

namespace kcheck {

// The files the builder writes for a variant with id `id`, as text.

// registration.h: TORCH_LIBRARY_EXPAND / REGISTER_EXTENSION for the binding sources.
std::string registration_header();

// _ops.py: imports the native module, `ops` = torch.ops.<id>, add_op_namespace_prefix.
std::string ops_module(const std::string& id);

// <module>/__init__.py: the compatibility package re-exporting the top-level
// package; `public_names` is the top-level __all__ when it is a literal.
std::string compatibility_package(const std::vector<std::string>& public_names);

// Linker version script exporting PyInit_<id> alone.
std::string export_map(const std::string& id);

}  // namespace kcheck
