#include "checker/process/process_count_group.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <vector>

namespace kcheck {
namespace {

namespace fs = std::filesystem;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

bool lists(std::string_view comma_separated, std::string_view name) {
  for (std::string_view item : split(comma_separated, ','))
    if (item == name) return true;
  return false;
}

std::string read_small_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One line of /proc/self/mountinfo: "36 35 98:0 ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPER".
struct CgroupMount {
  std::string root;  // the part of the hierarchy the mount shows
  std::string mount_point;
  bool version2 = false;
};

std::optional<CgroupMount> find_mount(const std::string& mountinfo, bool version2) {
  for (std::string_view line : split(mountinfo, '\n')) {
    if (line.find('\\') != std::string_view::npos) continue;  // an escaped space: not a path we make
    const std::size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    const std::vector<std::string_view> fields = split(line.substr(0, dash), ' ');
    const std::vector<std::string_view> filesystem = split(line.substr(dash + 3), ' ');
    if (fields.size() < 5 || filesystem.size() < 3) continue;
    const bool matches =
        version2 ? filesystem[0] == "cgroup2" : filesystem[0] == "cgroup" && lists(filesystem[2], "pids");
    if (matches) return CgroupMount{std::string(fields[3]), std::string(fields[4]), version2};
  }
  return std::nullopt;
}

// The directory of kcheck's own group in that hierarchy, from /proc/self/cgroup
// ("8:pids:/a/b" in v1, "0::/a/b" in v2).
std::optional<fs::path> own_group_directory(const CgroupMount& mount, const std::string& membership) {
  for (std::string_view line : split(membership, '\n')) {
    const std::vector<std::string_view> fields = split(line, ':');
    if (fields.size() < 3) continue;
    const bool matches = mount.version2 ? fields[0] == "0" && fields[1].empty() : lists(fields[1], "pids");
    if (!matches) continue;
    std::string_view path = line.substr(fields[0].size() + fields[1].size() + 2);
    if (mount.root != "/") {
      if (!path.starts_with(mount.root)) return std::nullopt;  // outside what the mount shows
      path.remove_prefix(mount.root.size());
    }
    return fs::path(mount.mount_point) / fs::path(path).relative_path();
  }
  return std::nullopt;
}

// Where a group with the pids controller can be made, or why not.
std::optional<fs::path> pids_parent(std::string& why_not) {
  const std::string mountinfo = read_small_file("/proc/self/mountinfo");
  const std::string membership = read_small_file("/proc/self/cgroup");
  if (const std::optional<CgroupMount> v1 = find_mount(mountinfo, false))
    if (std::optional<fs::path> directory = own_group_directory(*v1, membership)) return directory;
  if (const std::optional<CgroupMount> v2 = find_mount(mountinfo, true)) {
    std::optional<fs::path> directory = own_group_directory(*v2, membership);
    std::string enabled = directory ? read_small_file(*directory / "cgroup.subtree_control") : "";  // "cpu pids\n"
    for (char& c : enabled) c = c == ' ' || c == '\n' ? ',' : c;
    if (directory && lists(enabled, "pids")) return directory;
    why_not = "the pids controller is not enabled for the children of kcheck's cgroup";
    return std::nullopt;
  }
  why_not = "no cgroup pids controller is mounted";
  return std::nullopt;
}

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace

std::unique_ptr<ProcessCountGroup> ProcessCountGroup::create(std::uint64_t max_processes, std::string& why_not) {
  const std::optional<fs::path> parent = pids_parent(why_not);
  if (!parent) return nullptr;
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  for (int attempt = 0; attempt < 16; ++attempt) {
    const fs::path directory = *parent / ("kcheck-" + std::to_string(::getpid()) + "-" + std::to_string(stamp) + "-" +
                                          std::to_string(attempt));
    if (::mkdir(directory.c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      why_not = "cannot make a cgroup in " + parent->string() + ": " + std::strerror(errno);
      return nullptr;
    }
    std::unique_ptr<ProcessCountGroup> group(new ProcessCountGroup(directory));
    if (!write_text(directory / "pids.max", std::to_string(max_processes))) {
      why_not = "cannot set pids.max in " + directory.string();
      return nullptr;  // the destructor removes the directory
    }
    return group;
  }
  why_not = "cannot find a free cgroup name in " + parent->string();
  return nullptr;
}

ProcessCountGroup::ProcessCountGroup(fs::path directory)
    : directory_(std::move(directory)), procs_file_((directory_ / "cgroup.procs").string()) {}

ProcessCountGroup::~ProcessCountGroup() {
  // Its processes were killed; the kernel may take a moment to let go of them.
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::rmdir(directory_.c_str()) == 0 || errno == ENOENT) return;
    if (errno != EBUSY) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace kcheck
