// The harness's parts that need no worker: which variants this machine can
// run (KD005) and the bounded process runner.
#include <gtest/gtest.h>

#include <csignal>

#include "checker/process/bounded_process.h"
#include "checker/process/executable_search.h"
#include "checker/harness/harness.h"
#include "checker/kinds/variant_name.h"

namespace kcheck {
namespace {

TEST(HarnessRunnable, OtherTorchAbiOrBackendIsKD005WithWhatIsNeeded) {
  LocalTorch torch;
  torch.available = true;
  torch.version = *Version::parse("2.11.0");
  torch.version_text = "2.11.0";
  torch.backends = {"cpu"};
  VariantFacts variant;
  variant.name = parse_variant_name("torch211-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(why_not_runnable(variant, torch), "");
  variant.name = parse_variant_name("torch212-cxx11-cu130-x86_64-linux");
  std::string why = why_not_runnable(variant, torch);
  EXPECT_NE(why.find("Torch 2.12"), std::string::npos) << why;
  EXPECT_NE(why.find("cuda backend"), std::string::npos) << why;
  torch.available = false;
  torch.problem = "no worker";
  EXPECT_EQ(why_not_runnable(variant, torch), "no worker");
}

// A Python-only variant serves any Torch and host; only its backend must be here.
TEST(HarnessRunnable, APythonOnlyVariantNeedsOnlyItsBackend) {
  LocalTorch torch;
  torch.available = true;
  torch.version = *Version::parse("2.11.0");
  torch.version_text = "2.11.0";
  torch.cxx11_abi = false;
  torch.backends = {"cpu"};
  VariantFacts variant;
  variant.name = parse_variant_name("torch-cpu");
  ASSERT_TRUE(variant.name);
  EXPECT_EQ(why_not_runnable(variant, torch), "");
  variant.name = parse_variant_name("torch-universal");
  ASSERT_TRUE(variant.name);
  EXPECT_EQ(why_not_runnable(variant, torch), "");
  variant.name = parse_variant_name("torch-cuda");
  ASSERT_TRUE(variant.name);
  EXPECT_EQ(why_not_runnable(variant, torch), "needs the cuda backend (present here: cpu)");
}

TEST(BoundedProcess, DecodesExitSignalAndTimeout) {
  ProcessLimits limits{std::chrono::milliseconds(2000), 1024};
  WorkerEnd exited = run_bounded({"sh", "-c", "echo hi; exit 3"}, limits);
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_EQ(exited.output, "hi\n");
  WorkerEnd killed = run_bounded({"sh", "-c", "kill -SEGV $$"}, limits);
  EXPECT_EQ(killed.signal, SIGSEGV);
  EXPECT_NE(describe_signal(killed.signal).find("SIGSEGV"), std::string::npos);
  limits.timeout = std::chrono::milliseconds(300);
  WorkerEnd hung = run_bounded({"sh", "-c", "exec >&-; exec 2>&-; sleep 30"}, limits);
  EXPECT_TRUE(hung.timed_out);
  WorkerEnd flood = run_bounded({"sh", "-c", "yes | head -c 1000000"}, {std::chrono::milliseconds(5000), 1024});
  EXPECT_EQ(flood.output_bytes, 1000000u);
  EXPECT_EQ(flood.output.size(), 1024u);
  EXPECT_TRUE(flood.output_truncated);
}

// Issue #27 item 5: the Python `kcheck run` uses comes from where the user
// is, never from a path fixed when kcheck was built.
TEST(BoundedProcess, TheLastLinesOfAnOutputAreWhatAReportQuotes) {
  EXPECT_EQ(last_output_lines(""), "");
  EXPECT_EQ(last_output_lines("one line\r\n\n"), "one line");
  EXPECT_EQ(last_output_lines("Traceback:\n  File x\nImportError: no torch\n"), "ImportError: no torch");
  EXPECT_EQ(last_output_lines("a\nb\nc\n", 2), "b\nc");
  EXPECT_EQ(last_output_lines("a\nb\n", 5), "a\nb");
}

TEST(DefaultPython, TheActiveVirtualEnvironmentThenPython3OnPathThenNone) {
  const std::filesystem::path venv = std::filesystem::path(KCHECK_VENV_PYTHON).parent_path().parent_path();
  EXPECT_EQ(default_python(venv.c_str(), "/usr/bin"), venv / "bin" / "python");
  EXPECT_EQ(default_python("/no/such/venv", "/no/such/bin:/usr/bin"), std::filesystem::path("/usr/bin/python3"));
  EXPECT_EQ(default_python(nullptr, ".:bin:/no/such/bin"), std::filesystem::path())
      << "relative PATH entries (the current directory) are never searched";
  EXPECT_EQ(default_python("", ""), std::filesystem::path()) << "an empty PATH has no python3";
  EXPECT_EQ(default_python("", nullptr), find_executable("python3", "/usr/bin:/bin"))
      << "PATH unset: where execvp looks, /usr/bin:/bin";
}

TEST(DefaultPython, AGivenPythonIsMadeUsableFromInsideTheSandbox) {
  EXPECT_EQ(resolve_python("python3", "/no/such/bin:/usr/bin"), std::filesystem::path("/usr/bin/python3"));
  EXPECT_EQ(resolve_python("no-such-python-here", "/usr/bin"), std::filesystem::path());
  EXPECT_EQ(resolve_python(".venv/bin/python", nullptr), std::filesystem::current_path() / ".venv/bin/python")
      << "a relative path is made absolute: the contained process runs in its scratch folder";
  EXPECT_EQ(resolve_python("/opt/python", nullptr), std::filesystem::path("/opt/python"));
}

}  // namespace
}  // namespace kcheck
