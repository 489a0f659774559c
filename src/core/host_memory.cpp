// available_host_memory / require_host_memory: what this process may still allocate.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "tcsparse/error.hpp"
#include "tcsparse/memory.hpp"

namespace tcsparse {

namespace {

constexpr std::uint64_t kUnknown = std::numeric_limits<std::uint64_t>::max();

/// MemAvailable of /proc/meminfo in bytes.
std::uint64_t meminfo_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kilobytes = 0;
  std::string unit;
  while (meminfo >> key >> kilobytes) {
    std::getline(meminfo, unit);
    if (key == "MemAvailable:") return kilobytes * 1024;
  }
  return kUnknown;
}

/// A cgroup v2 limit less the usage (memory.max "max" means none).
std::uint64_t cgroup_available() {
  std::ifstream max_file("/sys/fs/cgroup/memory.max");
  std::ifstream current_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  std::uint64_t current = 0;
  if (!(max_file >> max_text) || !(current_file >> current) || max_text == "max") return kUnknown;
  const std::uint64_t limit = std::strtoull(max_text.c_str(), nullptr, 10);
  return limit > current ? limit - current : 0;
}

/// RLIMIT_AS (ulimit -v) less the process's current virtual size.
std::uint64_t address_space_available() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kUnknown;
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  if (!(statm >> pages)) return kUnknown;
  const std::uint64_t used = pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  return limit.rlim_cur > used ? limit.rlim_cur - used : 0;
}

/// TCSPARSE_MEMORY_LIMIT: bytes, or a number with a K/M/G/T suffix (powers of 1024).
std::uint64_t configured_limit() {
  const char* text = std::getenv("TCSPARSE_MEMORY_LIMIT");
  if (text == nullptr || *text == '\0') return kUnknown;
  char* end = nullptr;
  const double number = std::strtod(text, &end);
  double scale = 1.0;
  if (end != nullptr && *end != '\0') {
    switch (std::toupper(static_cast<unsigned char>(*end))) {
      case 'K': scale = 1024.0; break;
      case 'M': scale = 1024.0 * 1024; break;
      case 'G': scale = 1024.0 * 1024 * 1024; break;
      case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
      default: scale = 0.0;
    }
    ++end;
    if (*end == 'B' || *end == 'b') ++end;
  }
  if (!(number >= 0) || scale == 0.0 || (end != nullptr && *end != '\0'))
    throw Error(std::string("TCSPARSE_MEMORY_LIMIT='") + text +
                "' is not a byte count (e.g. 8G, 512M or 1000000)");
  return static_cast<std::uint64_t>(number * scale);
}

}  // namespace

std::uint64_t available_host_memory() {
  return std::min({meminfo_available(), cgroup_available(), address_space_available(),
                   configured_limit()});
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr const char* kUnits[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1000.0;
  int unit = 0;
  while (value >= 1000.0 && unit < 5) {
    value /= 1000.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

void require_host_memory(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t available = available_host_memory();
  if (bytes <= available) return;
  throw HostMemoryError(what + " needs about " + format_bytes(bytes) + " (" +
                            std::to_string(bytes) + " bytes) of host memory, but only " +
                            format_bytes(available) +
                            " are available (MemAvailable, cgroup and ulimit -v limits, "
                            "TCSPARSE_MEMORY_LIMIT)",
                        bytes, available);
}

}  // namespace tcsparse
