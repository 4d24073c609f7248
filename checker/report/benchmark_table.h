// The benchmark table of one op, as the Markdown and HTML reports show it:
// the cells of each row (kernel median and IQR, bandwidth and % of the copy
// roofline, speed-ups over Torch eager and over torch.compile), the notes
// under the table, and a text chart of the same rows for Markdown.
#pragma once
#include <string>
#include <vector>

#include <kainjow/mustache.hpp>

#include "checker/core/report.h"
#include "checker/report/report_view.h"

namespace kcheck {

// One row's cells: dtype, shape, repetitions, median_us, spread_us,
// achieved_gbs, percent_of_peak, eager_us, speedup, slower, compiled_us,
// compiled_mode, compile_speedup, compile_slower, call_bound.
kainjow::mustache::data benchmark_row_data(const BenchmarkResult& result);

// Below the table, once each: which torch.compile modes ran, why a mode or
// the whole compile column has no timing, what the call-overhead mark means.
std::vector<std::string> benchmark_table_notes(const OpBenchmarks& group);

// The group's rows as a fixed-width chart: a bar of the % of the measured
// copy bandwidth (the roofline of a memory-bound op) and both speed-ups.
std::string benchmark_text_chart(const OpBenchmarks& group);

// The mark after a compile speed-up that Python's call overhead sets.
inline constexpr const char* kCallBoundMark = "¹";

// Whether the result's compile speed-up gets that mark: a mode was timed and
// Python's per-call overhead likely sets it (BenchmarkResult::python_call_bound).
// The tables, the text chart and the SVG charts all ask this.
bool compile_speedup_call_bound(const BenchmarkResult& result);

}  // namespace kcheck
