#pragma once
// YAML -> validated Config. The only place yaml-cpp is used.
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/config/config.hpp"

namespace landlord::config {

struct ConfigError {
  std::string file;
  int line = 0;    // 1-based; 0 when the error has no place (e.g. unreadable file)
  int column = 0;  // 1-based
  std::string message;
  std::string to_string() const;  // "FILE:LINE:COLUMN: message"
};

// Every error found, not just the first, sorted by place. A YAML syntax error is the exception:
// yaml-cpp stops there, so it is reported alone. The file name in errors is `path` as given.
Expected<Config, std::vector<ConfigError>> load_file(const std::string& path);
// For a file named by someone else (the control API's config-test): only a regular file, opened
// without blocking (a FIFO or a device would hold the caller in open() or read()), not through a
// symbolic link unless `follow_symlink`, close-on-exec, checked with fstat on what was opened,
// and at most kMaxConfigBytes long.
Expected<Config, std::vector<ConfigError>> load_regular_file(const std::string& path, bool follow_symlink);
Expected<Config, std::vector<ConfigError>> load_string(std::string_view yaml,
                                                      const std::string& source_name);

// One error per line, each ending in '\n', in file order: what `landlord --check` prints.
std::string format_errors(const std::vector<ConfigError>& errors);

}  // namespace landlord::config
