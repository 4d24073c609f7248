// kcheck's Python analyser against CPython's `ast.parse`, side by side in one
// run, over every .py file of the machine's standard library (site-packages
// excluded). Both sides read the files into memory first and time only the
// analysis; the `ast` side runs in one python3 process per iteration and
// reports its own time (UseManualTime), so interpreter start-up is excluded.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/kinds/python_facts.h"

namespace {

namespace fs = std::filesystem;

std::string command_output(const std::string& command) {
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t read = 0;
    while ((read = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, read);
    pclose(pipe);
  }
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  return output;
}

std::string python_interpreter() {
  const char* configured = std::getenv("KCHECK_BENCH_PYTHON");
  return configured ? configured : "python3";
}

struct StdlibCorpus {
  std::vector<fs::path> paths;
  std::vector<std::string> sources;
  std::size_t bytes = 0;
  fs::path list_file;  // one path per line, for the python side
};

const StdlibCorpus& stdlib_corpus() {
  static const StdlibCorpus corpus = [] {
    StdlibCorpus loaded;
    const fs::path root =
        command_output(python_interpreter() + " -c 'import sysconfig;print(sysconfig.get_paths()[\"stdlib\"])'");
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
      const std::string name = it->path().filename().string();
      if (it->is_directory() && (name == "site-packages" || name == "dist-packages" || name == "__pycache__")) {
        it.disable_recursion_pending();
      } else if (it->is_regular_file() && it->path().extension() == ".py") {
        loaded.paths.push_back(it->path());
      }
    }
    std::sort(loaded.paths.begin(), loaded.paths.end());
    loaded.list_file = fs::temp_directory_path() / "kcheck-bench-stdlib-files.txt";
    std::ofstream list(loaded.list_file);
    for (const fs::path& path : loaded.paths) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream content;
      content << in.rdbuf();
      loaded.sources.push_back(content.str());
      loaded.bytes += loaded.sources.back().size();
      list << path.string() << '\n';
    }
    return loaded;
  }();
  return corpus;
}

void set_corpus_counters(benchmark::State& state, const StdlibCorpus& corpus) {
  state.counters["files"] = static_cast<double>(corpus.paths.size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * corpus.bytes));
}

void BM_KcheckAnalyseStdlib(benchmark::State& state) {
  const StdlibCorpus& corpus = stdlib_corpus();
  for (auto _ : state) {
    std::size_t imports = 0;
    for (std::size_t i = 0; i < corpus.sources.size(); ++i) {
      imports += kcheck::analyse_python_source(corpus.sources[i], corpus.paths[i].filename().string()).imports.size();
    }
    benchmark::DoNotOptimize(imports);
  }
  set_corpus_counters(state, corpus);
}

// Reads the listed files, then times ast.parse over all of them once;
// prints wall and CPU seconds.
constexpr const char* kAstTimer = R"py(
import ast, sys, time, warnings
warnings.simplefilter("ignore")
sources = [open(p.rstrip("\n"), "rb").read() for p in open(sys.argv[1])]
start, start_cpu = time.perf_counter(), time.process_time()
for source in sources:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        pass
print(time.perf_counter() - start, time.process_time() - start_cpu)
)py";

void BM_AstParseStdlib(benchmark::State& state) {
  const StdlibCorpus& corpus = stdlib_corpus();
  const fs::path script = fs::temp_directory_path() / "kcheck-bench-ast-timer.py";
  std::ofstream(script) << kAstTimer;
  const std::string command = python_interpreter() + " " + script.string() + " " + corpus.list_file.string();
  double cpu_seconds = 0;
  for (auto _ : state) {
    std::istringstream reported(command_output(command));
    double wall = 0, cpu = 0;
    if (!(reported >> wall >> cpu)) {
      state.SkipWithError("python3 did not report its times");
      break;
    }
    state.SetIterationTime(wall);
    cpu_seconds += cpu;
  }
  // On a loaded machine wall time inflates; CPU time per iteration compares
  // with the CPU column of the kcheck benchmark.
  state.counters["cpu_ms_per_iteration"] =
      1000 * cpu_seconds / static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
  set_corpus_counters(state, corpus);
}

BENCHMARK(BM_KcheckAnalyseStdlib)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_AstParseStdlib)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(5);

}  // namespace
