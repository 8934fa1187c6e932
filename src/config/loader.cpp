#include "landlord/config/loader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "landlord/config/keys.hpp"
#include "limits.hpp"
#include "sections.hpp"
#include "yaml_reader.hpp"

namespace landlord::config {
namespace {

constexpr keys::KeyList kTopLevelKeys{keys::kTopLevel};

Config read_config(detail::Reader& reader, const YAML::Node& root) {
  Config config;
  config.source = reader.file();
  const YAML::Mark start = YAML::Mark{};  // line 1, column 1: where a missing top-level key belongs
  if (root.IsNull()) {
    reader.error(start, "the file is empty; it needs at least 'subnets'");
    return config;
  }
  if (!root.IsMap()) {
    reader.error(root.Mark(), "the file must be a map of sections (server, store, lease, subnets, ...), not " +
                                  std::string{detail::describe(root)});
    return config;
  }
  const auto top = reader.section(root, start, "the file", kTopLevelKeys);
  config.server = detail::read_server(reader, top.find("server"));
  config.store = detail::read_store(reader, top.find("store"));
  config.control = detail::read_control(reader, top.find("control"));
  config.events = detail::read_events(reader, top.find("events"));
  config.log = detail::read_log(reader, top.find("log"));
  config.peers = detail::read_peers(reader, top.find("peers"), config.server, config.store);
  config.ddns = detail::read_ddns(reader, top.find("ddns"));

  const auto lease = detail::read_lease(reader, top.find("lease"), start, LeaseTimes{});
  detail::check_lease(reader, lease, "");
  config.lease = lease.times;

  detail::ScopeOptions default_options;
  if (const auto* options = top.find("options")) default_options = detail::read_options(reader, *options);

  if (const auto* classes = top.find("classes")) config.classes = detail::read_classes(reader, *classes, config.lease);

  if (const auto* subnets = top.find("subnets")) {
    config.subnets = detail::read_subnets(reader, *subnets, {config.lease, default_options, config.classes, config.server, config.peers, config.ddns});
  } else {
    reader.error(start, "missing required key 'subnets'");
  }
  return config;
}

std::string too_large(std::uint64_t size) {
  return "the file is " + std::to_string(size) + " bytes, more than a config file may be (" +
         std::to_string(detail::kMaxFileBytes) + ")";
}

}  // namespace

std::string ConfigError::to_string() const {
  if (line <= 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::string format_errors(const std::vector<ConfigError>& errors) {
  std::string text;
  const std::size_t shown = std::min(errors.size(), detail::kMaxErrorsShown);
  for (std::size_t i = 0; i < shown; ++i) {
    text += errors[i].to_string();
    text += '\n';
  }
  if (errors.size() > shown) {
    // One mistake (a bad indentation, a pasted block) often makes hundreds: the first ones say
    // what it is.
    text += errors.front().file + ": " + std::to_string(errors.size() - shown) +
            " more errors not shown (" + std::to_string(errors.size()) + " in all)\n";
  }
  return text;
}

Expected<Config, std::vector<ConfigError>> load_string(std::string_view yaml,
                                                      const std::string& source_name) {
  detail::Reader reader{source_name};
  if (yaml.size() > detail::kMaxFileBytes) {
    reader.error(YAML::Mark::null_mark(), too_large(yaml.size()));
    return unexpected(reader.take_errors());
  }
  if (!detail::check_text(reader, yaml)) return unexpected(reader.take_errors());
  YAML::Node root;
  try {
    root = YAML::Load(std::string{yaml});
  } catch (const YAML::Exception& failure) {
    // yaml-cpp stops at the first syntax error: nothing after it can be trusted.
    reader.error(failure.mark, "YAML syntax error: " + failure.msg);
    return unexpected(reader.take_errors());
  }
  Config config = read_config(reader, root);
  if (reader.failed()) return unexpected(reader.take_errors());
  return config;
}

namespace detail {

Expected<std::string, std::string> read_regular_file(const std::string& path, bool follow_symlink,
                                                     std::size_t max_bytes, std::string_view what) {
  const auto too_big = [&](std::uint64_t size) {
    return unexpected("the file is " + std::to_string(size) + " bytes, more than " + std::string{what} +
                      " may be (" + std::to_string(max_bytes) + ")");
  };
  const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (follow_symlink ? 0 : O_NOFOLLOW);
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int cause = errno;
    if (cause == ELOOP && !follow_symlink) return unexpected(std::string{"is a symbolic link; name the file itself"});
    if (cause == EACCES) return unexpected(std::string{"cannot be read: permission denied"});
    return unexpected(std::string{"cannot open: "} + std::strerror(cause));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat status{};
  if (::fstat(fd, &status) != 0) return unexpected(std::string{"cannot read: "} + std::strerror(errno));
  if (S_ISDIR(status.st_mode)) return unexpected("is a directory, not " + std::string{what});
  if (!S_ISREG(status.st_mode)) return unexpected(std::string{"is not a regular file"});
  if (static_cast<std::uint64_t>(status.st_size) > max_bytes) return too_big(static_cast<std::uint64_t>(status.st_size));
  // Read to the end, but never past the cap: the file may grow while it is read.
  std::string contents(static_cast<std::size_t>(status.st_size), '\0');
  std::size_t have = 0;
  for (;;) {
    if (have == contents.size()) {
      if (contents.size() > max_bytes) return too_big(contents.size());
      contents.resize(std::min(contents.size() + 65536, max_bytes + 1));
    }
    const ssize_t got = ::read(fd, contents.data() + have, contents.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return unexpected(std::string{"cannot read: "} + std::strerror(errno));
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  contents.resize(have);
  return contents;
}

}  // namespace detail

Expected<Config, std::vector<ConfigError>> load_regular_file(const std::string& path, bool follow_symlink) {
  auto contents = detail::read_regular_file(path, follow_symlink, detail::kMaxFileBytes, "a config file");
  if (!contents) return unexpected(std::vector<ConfigError>{{path, 0, 0, std::move(contents.error())}});
  return load_string(*contents, path);
}

Expected<Config, std::vector<ConfigError>> load_file(const std::string& path) {
  const auto failure = [&](std::string message) {
    return unexpected(std::vector<ConfigError>{{path, 0, 0, std::move(message)}});
  };
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (std::filesystem::is_directory(status)) return failure("is a directory, not a config file");
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) &&
      status.type() != std::filesystem::file_type::fifo) {
    return failure("is not a regular file");
  }
  std::ifstream file{path, std::ios::binary};
  if (!file) {
    const int cause = errno;
    if (cause == EACCES) return failure("cannot be read: permission denied (the file exists)");
    return failure(std::string{"cannot open: "} + std::strerror(cause));
  }
  // Size first: a huge file is refused without being read into memory.
  if (const auto size = std::filesystem::file_size(path, error);
      !error && size > detail::kMaxFileBytes) {
    return failure(too_large(size));
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) {
    return unexpected(std::vector<ConfigError>{{path, 0, 0, std::string{"cannot read: "} + std::strerror(errno)}});
  }
  return load_string(contents.str(), path);
}

}  // namespace landlord::config
