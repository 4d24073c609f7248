#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "checker/core/tree_facts.h"

namespace kcheck {

// A compact binary encoding of one file's facts for the scan cache. Every
// facts struct's members are listed once (fact_codec.cpp) and serve both
// directions. Change kFactsEncodingVersion whenever a facts struct or that
// list changes: it is part of every cache key, so old entries are not read.
inline constexpr int kFactsEncodingVersion = 5;

std::string encode_python_facts(const PythonFileFacts& facts);
std::string encode_native_facts(const NativeModuleFacts& facts);

// nullopt when the bytes are not a complete encoding (a truncated or foreign entry).
std::optional<PythonFileFacts> decode_python_facts(std::string_view bytes);
std::optional<NativeModuleFacts> decode_native_facts(std::string_view bytes);

}  // namespace kcheck
