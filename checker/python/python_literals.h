#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "checker/python/python_statements.h"

namespace kcheck::python {

// The value of one string token as written (`'a'`, `r"\d"`, `"""x"""`):
// prefix and quotes removed, common escapes decoded. An f-string gives its
// template text with the braces.
std::string string_token_value(std::string_view token_text);

// The value of a range made only of string tokens (implicit concatenation),
// or nullopt when the range holds anything else.
std::optional<std::string> string_literal_value(TokenRange range);

// "a.b.c" when the range is exactly a dotted name, else nullopt.
std::optional<std::string> dotted_name(TokenRange range);

// Python's hard keywords, which never start a dotted name.
bool is_python_keyword(std::string_view word);

}  // namespace kcheck::python
