#include "checker/report/benchmark_table.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace kcheck {
namespace {

using kainjow::mustache::data;

std::string times(double speedup) { return speedup > 0 ? format_number(speedup, 2) + "×" : "–"; }

// The op's name without the kernel's namespace, safe inside a fenced block
// (the kernel named it: no backquote, no control character).
std::string short_op(const std::string& op) {
  const std::size_t colons = op.rfind("::");
  std::string name = colons == std::string::npos ? op : op.substr(colons + 2);
  for (char& c : name)
    if (c == '`' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return name;
}

// Characters, not bytes: a UTF-8 continuation byte starts none.
std::size_t characters(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string padded(std::string text, std::size_t width) {
  const std::size_t count = characters(text);
  if (count < width) text.append(width - count, ' ');
  return text;
}

std::string right_aligned(const std::string& text, std::size_t width) {
  const std::size_t count = characters(text);
  return count >= width ? text : std::string(width - count, ' ') + text;
}

}  // namespace

bool compile_speedup_call_bound(const BenchmarkResult& result) {
  return fastest_timed(result.compiled) && result.python_call_bound();
}

data benchmark_row_data(const BenchmarkResult& result) {
  data row;
  row.set("dtype", result.dtype);
  row.set("shape", result.shape);
  row.set("repetitions", std::to_string(result.repetitions));
  row.set("median_us", format_number(result.median_us, 1));
  row.set("spread_us", format_number(result.spread_us, 1));
  row.set("achieved_gbs", format_number(result.achieved_gbs, 0));
  row.set("percent_of_peak", format_number(result.percent_of_peak, 0));
  row.set("eager_us", result.eager_median_us > 0 ? format_number(result.eager_median_us, 1) : "–");
  row.set("speedup", times(result.speedup));
  row.set("slower", result.speedup > 0 && result.speedup < 1);
  const CompiledBaseline* fastest = fastest_timed(result.compiled);
  row.set("compiled_us", fastest ? format_number(fastest->median_us, 1) : "–");
  row.set("compiled_mode", fastest ? fastest->mode : "–");
  const bool call_bound = compile_speedup_call_bound(result);
  row.set("compile_speedup", times(result.compile_speedup) + (call_bound ? kCallBoundMark : ""));
  row.set("compile_slower", result.compile_speedup > 0 && result.compile_speedup < 1);
  row.set("call_bound", call_bound);
  return row;
}

std::vector<std::string> benchmark_table_notes(const OpBenchmarks& group) {
  std::vector<std::string> notes;
  std::vector<std::string> modes;
  std::vector<std::pair<std::string, int>> problems;  // in first-seen order, with a count of rows
  auto count_problem = [&problems](const std::string& problem) {
    auto found = std::find_if(problems.begin(), problems.end(), [&](const auto& p) { return p.first == problem; });
    if (found == problems.end())
      problems.emplace_back(problem, 1);
    else
      ++found->second;
  };
  bool call_bound = false;
  for (const BenchmarkResult* result : group.results) {
    for (const CompiledBaseline& mode : result->compiled) {
      if (std::find(modes.begin(), modes.end(), mode.mode) == modes.end()) modes.push_back(mode.mode);
      if (!mode.timed()) count_problem("torch.compile " + mode.mode + ": " + mode.problem);
    }
    if (result->compiled.empty() && !result->compiled_problem.empty())
      count_problem("torch.compile " + result->compiled_problem);
    call_bound = call_bound || compile_speedup_call_bound(*result);
  }
  if (!modes.empty()) {
    std::string list;
    for (const std::string& mode : modes) list += (list.empty() ? "" : ", ") + mode;
    notes.push_back("torch.compile of the same expression, modes " + list +
                    ": the fastest timed mode of each row is shown, speed-up over it.");
  }
  for (const auto& [problem, rows] : problems)
    notes.push_back(problem + (group.results.size() > 1 ? " (" + plural(rows, "row") + ")" : ""));
  if (call_bound)
    notes.push_back(std::string(kCallBoundMark) +
                    " Python's per-call overhead, not the device, likely sets this compiled timing: called from "
                    "Python, as the compiled form is, the eager form takes more than 1.2 times its time from C++, "
                    "or the compiled form more than 1.2 times the eager one. The speed-up over it flatters the "
                    "kernel.");
  return notes;
}

std::string benchmark_text_chart(const OpBenchmarks& group) {
  constexpr int kBarCells = 25;  // 4% each, eighths of a cell drawn
  static const char* const kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::vector<std::string> labels;
  std::size_t label_width = 0;
  for (const BenchmarkResult* result : group.results) {
    labels.push_back(short_op(result->op) + " · " + result->dtype + " · " + result->shape);
    label_width = std::max(label_width, characters(labels.back()));
  }
  std::string chart = "% of the measured copy bandwidth (each █ 4%), speed-up over Torch eager and torch.compile\n";
  for (std::size_t i = 0; i < group.results.size(); ++i) {
    const BenchmarkResult& result = *group.results[i];
    const double percent = std::clamp(result.percent_of_peak, 0.0, 100.0);
    const int eighths = static_cast<int>(std::lround(percent / 100.0 * kBarCells * 8));
    std::string bar;
    for (int cell = 0; cell < eighths / 8; ++cell) bar += "█";
    bar += kEighths[eighths % 8];
    chart += padded(labels[i], label_width) + "  " + padded(bar, kBarCells) + " " +
             right_aligned(format_number(result.percent_of_peak, 0) + "%", 4) + "  " +
             padded(times(result.speedup) + " eager", 12) + "  " + times(result.compile_speedup) +
             (compile_speedup_call_bound(result) ? kCallBoundMark : "") + " compile\n";
  }
  return chart;
}

}  // namespace kcheck
