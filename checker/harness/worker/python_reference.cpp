#include "checker/harness/worker/python_reference.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace kcheck::worker {
namespace {

using nlohmann::json;

// No std::filesystem here: libtorch.so exports a copy of some of its
// functions that the worker's own calls bind to, and that copy crashed
// (remove_all called a null pointer). Plain POSIX calls instead.
std::string joined(const std::string& directory, const std::string& name) { return directory + "/" + name; }

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }

void remove_tree(const std::string& path) { ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

constexpr std::size_t kMaxHelperResultBytes = 16 << 20;
constexpr std::size_t kLogTailBytes = 2000;
constexpr int kHelperTimeoutMs = 600 * 1000;  // one op's references, all its cases

const char* dtype_name(at::ScalarType type) {
  switch (type) {
    case at::kDouble:
      return "float64";
    case at::kFloat:
      return "float32";
    case at::kHalf:
      return "float16";
    case at::kBFloat16:
      return "bfloat16";
    default:
      return nullptr;
  }
}

void write_tensor(const at::Tensor& tensor, const std::string& path) {
  at::Tensor host = tensor.detach().to(at::kCPU).contiguous();
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(static_cast<const char*>(host.data_ptr()), static_cast<std::streamsize>(host.nbytes()));
  if (!file) throw std::runtime_error("cannot write " + path);
}

// The manifest entry of one argument: a tensor file, a scalar, or an output (left out of the call).
json argument_entry(const ArgPlan& arg, const c10::IValue& value, const at::ScalarType reference_dtype,
                    bool native_dtype, const std::string& file) {
  json entry = {{"name", arg.name}};
  if (!arg.is_tensor) {
    if (arg.integer)
      entry["int"] = static_cast<std::int64_t>(arg.value);
    else
      entry["value"] = arg.value;
    return entry;
  }
  if (arg.output) {
    entry["output"] = true;
    entry["shape"] = arg.shape;
    return entry;
  }
  at::Tensor tensor = native_dtype ? value.toTensor() : value.toTensor().to(reference_dtype);
  entry["file"] = file_name(file);
  entry["dtype"] = dtype_name(tensor.scalar_type());
  entry["shape"] = tensor.sizes().vec();
  write_tensor(tensor, file);
  return entry;
}

// The last kLogTailBytes of a file, read from there (the helper's log may be large).
std::string file_tail(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = file ? static_cast<std::streamoff>(file.tellg()) : 0;
  const std::streamoff start = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(kLogTailBytes));
  file.seekg(start);
  std::string all(static_cast<std::size_t>(size - start), '\0');
  file.read(all.data(), static_cast<std::streamsize>(all.size()));
  if (start > 0) all = "..." + all;
  while (!all.empty() && (all.back() == '\n' || all.back() == '\r')) all.pop_back();
  return all;
}

// Starts `argv` with standard output and error into `log`; its exit status, or -1 when it could not start.
int run_helper(const std::vector<std::string>& argv, const std::string& log, std::string& problem) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t child = -1;
  int error = ::posix_spawn(&child, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    problem = "cannot start " + argv[0] + ": " + std::strerror(error);
    return -1;
  }
  // Bounded: a reference that never ends (2 ** 2 ** 40) is the reference's problem, not a kernel that hung.
  int status = 0;
  for (int waited_ms = 0;; waited_ms += 50) {
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    if (waited_ms >= kHelperTimeoutMs) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      problem = "the reference helper did not finish within " + std::to_string(kHelperTimeoutMs / 1000) + " s";
      return -1;
    }
    ::usleep(50 * 1000);
  }
  if (WIFSIGNALED(status)) {
    problem = "the reference helper was killed by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

// One output of the helper's result: a float64 tensor of the shape it states.
at::Tensor read_output(const json& entry, const std::string& directory) {
  std::vector<std::int64_t> shape = entry.at("shape").get<std::vector<std::int64_t>>();
  std::string file = entry.at("file").get<std::string>();
  if (file.find('/') != std::string::npos || file.empty() || file[0] == '.')
    throw std::runtime_error("the helper named an output file outside its directory");
  // The shape is checked against the file before anything is allocated for it.
  std::uint64_t numel = 1;
  for (const std::int64_t extent : shape) {
    if (extent < 0 || (extent > 0 && numel > (std::uint64_t{1} << 40) / static_cast<std::uint64_t>(extent)))
      throw std::runtime_error("output " + file + " has an impossible shape");
    numel *= static_cast<std::uint64_t>(extent);
  }
  const std::string path = joined(directory, file);
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0 || static_cast<std::uint64_t>(status.st_size) != numel * sizeof(double))
    throw std::runtime_error("output file " + file + " does not hold " + std::to_string(numel) + " float64 values");
  at::Tensor tensor = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
  std::ifstream input(path, std::ios::binary);
  input.read(static_cast<char*>(tensor.data_ptr()), static_cast<std::streamsize>(tensor.nbytes()));
  if (!input) throw std::runtime_error("cannot read " + file);
  return tensor;
}

std::map<std::string, ReferenceOutputs> read_results(const std::string& directory) {
  std::map<std::string, ReferenceOutputs> results;
  const std::string path = joined(directory, "result.json");
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) throw std::runtime_error("the helper wrote no result");
  if (static_cast<std::uint64_t>(status.st_size) > kMaxHelperResultBytes)
    throw std::runtime_error("the helper's result is too large");
  std::ifstream file(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  json document = json::parse(text);
  for (const json& entry : document.at("cases")) {
    ReferenceOutputs outputs;
    outputs.problem = entry.value("problem", "");
    if (outputs.problem.empty())
      for (const json& output : entry.at("outputs")) outputs.outputs.push_back(read_output(output, directory));
    results[entry.at("id").get<std::string>()] = std::move(outputs);
  }
  return results;
}

}  // namespace

PythonReferenceBatch::PythonReferenceBatch(const OpPlan& op, const PythonReferenceSettings& settings,
                                           std::string device, std::string work_dir)
    : op_(op), settings_(settings), work_dir_(std::move(work_dir)) {
  remove_tree(work_dir_);
  if (::mkdir(work_dir_.c_str(), 0700) != 0) problem_ = "cannot make " + work_dir_ + ": " + std::strerror(errno);
  manifest_ = {{"kind", op.reference_kind == ReferenceKind::python ? "python" : "expression"},
               {"reference", op.reference},
               {"repository", settings.repository},
               {"device", std::move(device)},
               {"cases", json::array()}};
}

PythonReferenceBatch::~PythonReferenceBatch() { remove_tree(work_dir_); }

void PythonReferenceBatch::add(const std::string& id, const std::vector<ArgPlan>& args,
                               const std::vector<c10::IValue>& values) {
  ids_.push_back(id);
  if (!problem_.empty()) return;
  const bool native = op_.reference_dtype == "native";
  try {
    json entry = {{"id", id}, {"args", json::array()}};
    for (std::size_t i = 0; i < args.size(); ++i)
      entry["args"].push_back(argument_entry(args[i], values[i], at::kDouble, native,
                                             joined(work_dir_, id + "-arg" + std::to_string(i) + ".bin")));
    manifest_["cases"].push_back(std::move(entry));
  } catch (const std::exception& error) {
    problem_ = std::string("the reference's inputs could not be written: ") + error.what();
  }
}

std::map<std::string, ReferenceOutputs> PythonReferenceBatch::every_case(const std::string& problem) const {
  std::map<std::string, ReferenceOutputs> results;
  for (const std::string& id : ids_) results[id].problem = problem;
  return results;
}

std::map<std::string, ReferenceOutputs> PythonReferenceBatch::run() {
  if (settings_.python.empty()) return every_case("its reference is Python and no Python was given (--python)");
  if (settings_.helper.empty()) return every_case("kcheck gave the worker no reference helper");
  if (!problem_.empty()) return every_case(problem_);
  const std::string manifest = joined(work_dir_, "manifest.json");
  std::ofstream(manifest, std::ios::binary) << manifest_.dump();
  std::string problem;
  const std::string log = joined(work_dir_, "helper.log");
  int status = run_helper({settings_.python, "-I", "-B", settings_.helper, manifest}, log, problem);
  if (status != 0) {
    if (problem.empty()) problem = "the reference helper failed (exit status " + std::to_string(status) + ")";
    std::string tail = file_tail(log);
    return every_case(problem + (tail.empty() ? "" : ": " + tail));
  }
  try {
    std::map<std::string, ReferenceOutputs> results = read_results(work_dir_);
    for (const std::string& id : ids_)
      if (!results.contains(id)) results[id].problem = "the reference helper gave no result for this case";
    return results;
  } catch (const std::exception& error) {
    return every_case(std::string("the reference helper's result is unusable: ") + error.what());
  }
}

}  // namespace kcheck::worker
