#include "checker/kinds/process_end.h"

#include <csignal>
#include <cstring>
#include <utility>

namespace kcheck {

std::string ContainmentInForce::describe() const {
  std::string text = pid_namespace ? "PID namespace (nothing the worker starts outlives it)"
                                   : "no PID namespace (processes left behind are found through /proc and killed)";
  if (host_hidden)
    text +=
        "; the rest of the machine hidden (only the system's directories, the variant, Torch and Python, read-only; "
        "writes go to size-bounded temporary directories)";
  if (!host_hidden)
    text += read_only_outside_scratch ? "; read-only outside its scratch directory"
                                      : "; writes outside its scratch directory are not prevented";
  if (writes_captured) text += "; writes to the shared temporary directories captured and reported";
  if (user_namespace) text += "; user namespace";
  text += network_namespace ? "; no network (a network namespace of its own)" : "; the machine's network";
  text +=
      process_limit ? "; process limit" : "; no process limit (no cgroup of its own, and root or no user namespace)";
  return text;
}

std::string describe_signal(int signal) {
  // Linux's signal names (signal(7)); glibc's sigabbrev_np is 2.32+, newer
  // than the glibc floor kcheck itself keeps (manylinux_2_28).
  static constexpr std::pair<int, const char*> kNames[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},     {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"}, {SIGSTKFLT, "SIGSTKFLT"},
      {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"},     {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"},
      {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},   {SIGXCPU, "SIGXCPU"},
      {SIGXFSZ, "SIGXFSZ"}, {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
      {SIGIO, "SIGIO"},     {SIGPWR, "SIGPWR"},       {SIGSYS, "SIGSYS"}};
  for (const auto& [number, name] : kNames)
    if (number == signal) return std::string(name) + " (" + ::strsignal(signal) + ")";
  return "signal " + std::to_string(signal);
}

std::string last_output_lines(std::string output, std::size_t count) {
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  std::size_t start = output.size();
  for (std::size_t lines = 0; lines < count && start > 0; ++lines) {
    const std::size_t newline = output.rfind('\n', start - 1);
    if (newline == std::string::npos) return output;
    start = newline;
  }
  return start < output.size() && output[start] == '\n' ? output.substr(start + 1) : output.substr(start);
}

}  // namespace kcheck
