#include "checker/report/display_text.h"

#include <cstdint>
#include <cstdio>
#include <optional>

#include "checker/support/text_scan.h"

namespace kcheck {

namespace {

// The length of the valid UTF-8 sequence starting `text` (1 to 4) and its
// code point, or 0 when the bytes there are not one. Validity is
// text::utf8_lead's (RFC 3629: no overlong forms, no UTF-16 surrogates,
// nothing above U+10FFFF), the same every reader of kcheck uses.
std::size_t decode_utf8(std::string_view text, char32_t& code_point) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  if (byte(0) < 0x80) {
    code_point = byte(0);
    return 1;
  }
  const std::optional<text::Utf8Lead> lead = text::utf8_lead(byte(0));
  if (!lead || text.size() < lead->length || byte(1) < lead->second_min || byte(1) > lead->second_max) return 0;
  code_point = byte(0) & (0x7f >> lead->length);
  for (std::size_t i = 1; i < lead->length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3f);
  }
  return lead->length;
}

// Characters that control a display rather than being part of the text.
bool controls_display(char32_t c) {
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) ||  // C0, DEL, C1
         c == 0xad || c == 0x061c || c == 0x180e ||            // soft hyphen, Arabic letter mark, Mongolian separator
         (c >= 0xe0000 && c <= 0xe007f) ||                     // tag characters
         (c >= 0x200b && c <= 0x200f) ||                       // zero-width characters, LRM, RLM
         c == 0x2028 || c == 0x2029 ||                         // line and paragraph separators
         (c >= 0x202a && c <= 0x202e) ||                       // bidirectional embeddings and overrides
         (c >= 0x2060 && c <= 0x2069) ||                       // word joiner, invisible operators, isolates
         c == 0xfeff || (c & 0xfffe) == 0xfffe ||              // BOM, noncharacters U+xxFFFE/U+xxFFFF
         (c >= 0xfdd0 && c <= 0xfdef);
}

void append_escape(std::string& out, char32_t c) {
  char buffer[16];
  switch (c) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      break;
  }
  if (c < 0x80)
    std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(c));
  else
    std::snprintf(buffer, sizeof buffer, c > 0xffff ? "\\U%08x" : "\\u%04x", static_cast<unsigned>(c));
  out += buffer;
}

void make_safe(std::string& text) { text = display_safe(text); }

}  // namespace

std::string display_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    char32_t code_point = 0;
    std::size_t length = decode_utf8(text, code_point);
    if (length == 0) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(text.front()));
      out += buffer;
      text.remove_prefix(1);
      continue;
    }
    if (controls_display(code_point))
      append_escape(out, code_point);
    else
      out.append(text.substr(0, length));
    text.remove_prefix(length);
  }
  return out;
}

Report display_safe_report(const Report& report) {
  Report safe = report;
  for (std::string* text : {&safe.policy_name, &safe.policy_source, &safe.input, &safe.audited_root, &safe.scope})
    make_safe(*text);
  for (std::string& code : safe.rules_run) make_safe(code);
  for (VariantSummary& variant : safe.variants)
    for (std::string* text : {&variant.name, &variant.path, &variant.backend}) make_safe(*text);
  for (Finding& finding : safe.findings)
    for (std::string* text :
         {&finding.code, &finding.message, &finding.variant, &finding.file, &finding.location.symbol,
          &finding.location.section, &finding.location.json_pointer, &finding.suppression_reason})
      make_safe(*text);
  make_safe(safe.dynamic.containment);
  for (DeviceLimits& device : safe.dynamic.devices)
    for (std::string* text : {&device.variant, &device.name, &device.backend, &device.matmul_dtype}) make_safe(*text);
  for (OpCheck& check : safe.dynamic.op_checks)
    for (std::string* text : {&check.variant, &check.op, &check.dtype, &check.shape}) make_safe(*text);
  for (BenchmarkResult& result : safe.dynamic.benchmarks) {
    for (std::string* text : {&result.variant, &result.op, &result.dtype, &result.shape, &result.eager,
                              &result.eager_problem, &result.compiled_problem})
      make_safe(*text);
    for (CompiledBaseline& compiled : result.compiled)
      for (std::string* text : {&compiled.mode, &compiled.problem}) make_safe(*text);
  }
  for (VariantRun& run : safe.dynamic.runs)
    for (std::string* text : {&run.variant, &run.reason, &run.python, &run.torch, &run.worker}) make_safe(*text);
  for (OpVerification& op : safe.dynamic.ops) {
    for (std::string* text : {&op.variant, &op.op, &op.schema, &op.how, &op.reference, &op.why, &op.reported_as})
      make_safe(*text);
    for (std::string& key : op.dispatch_keys) make_safe(key);
    for (std::string& dtype : op.unsupported_dtypes) make_safe(dtype);
  }
  for (TestOutcome& test : safe.dynamic.tests)
    for (std::string* text : {&test.variant, &test.test, &test.outcome, &test.message}) make_safe(*text);
  return safe;
}

}  // namespace kcheck
