#pragma once
#include <string>
#include <string_view>

namespace kcheck {

// Text and attribute values of XML 1.0 (JUnit) and HTML (the inline SVG
// charts): &, <, >, " and ' escaped, and the C0 controls XML cannot carry
// (all but tab, newline and carriage return) replaced with '?'.
std::string xml_escape(std::string_view text);

}  // namespace kcheck
