#include "landlord/config/loader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "landlord/config/keys.hpp"
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

  const auto lease = detail::read_lease(reader, top.find("lease"), start, LeaseTimes{});
  detail::check_lease(reader, lease, "");
  config.lease = lease.times;

  std::vector<OptionValue> default_options;
  if (const auto* options = top.find("options")) default_options = detail::read_options(reader, *options);

  if (const auto* subnets = top.find("subnets")) {
    config.subnets = detail::read_subnets(reader, *subnets, {config.lease, default_options, config.server});
  } else {
    reader.error(start, "missing required key 'subnets'");
  }
  return config;
}

}  // namespace

std::string ConfigError::to_string() const {
  if (line <= 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::string format_errors(const std::vector<ConfigError>& errors) {
  std::string text;
  for (const auto& error : errors) {
    text += error.to_string();
    text += '\n';
  }
  return text;
}

Expected<Config, std::vector<ConfigError>> load_string(std::string_view yaml,
                                                      const std::string& source_name) {
  detail::Reader reader{source_name};
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

Expected<Config, std::vector<ConfigError>> load_file(const std::string& path) {
  std::ifstream file{path, std::ios::binary};
  if (!file) {
    return unexpected(std::vector<ConfigError>{{path, 0, 0, std::string{"cannot open: "} + std::strerror(errno)}});
  }
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) {
    return unexpected(std::vector<ConfigError>{{path, 0, 0, std::string{"cannot read: "} + std::strerror(errno)}});
  }
  return load_string(contents.str(), path);
}

}  // namespace landlord::config
