#pragma once
#include <string>
#include <string_view>

#include "checker/core/report.h"

namespace kcheck {

// Text that came from an upload (paths, symbol and op names, messages quoting
// them) as a human format may show it: valid UTF-8 in which nothing can move
// a terminal's cursor, start an escape sequence, break a line, or reorder
// what is displayed. Control characters (C0, DEL, C1), line and paragraph
// separators, bidirectional and invisible format characters, and Unicode
// noncharacters are written as visible escapes (`\x1b`, `\n`, `\u202e`); a
// byte that is not part of valid UTF-8 is written `\xNN`. Everything else is
// kept as is, so an ordinary path reads the same.
std::string display_safe(std::string_view text);

// The report with every string of it passed through display_safe: the text,
// Markdown, HTML and JUnit renderers work on this copy, so no renderer can
// forget a field.
Report display_safe_report(const Report& report);

}  // namespace kcheck
