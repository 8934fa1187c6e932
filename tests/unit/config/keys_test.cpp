// The key lists the loader checks maps against (config/keys.hpp) are the real structure of the
// file, and man/landlord.yaml.5 documents exactly those keys: one missing from the page, or a
// page entry the loader would reject, fails here.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "landlord/config/keys.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/config/option_catalogue.hpp"

namespace landlord::config {
namespace {

// "subnets[].options.custom[].hex" -> {subnets: [{options: {custom: [{hex: x}]}}]}
std::string yaml_with(std::string_view path) {
  const auto dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  const bool list = head.ends_with("[]");
  if (list) head.remove_suffix(2);
  const std::string inner = dot == std::string_view::npos ? "x" : yaml_with(path.substr(dot + 1));
  std::string text = "{" + std::string{head} + ": ";
  text += list ? "[" + inner + "]" : inner;
  return text + "}";
}

std::set<std::string> documented_keys() {
  std::ifstream page{std::string{LANDLORD_SOURCE_DIR} + "/man/landlord.yaml.5"};
  EXPECT_TRUE(page) << "man/landlord.yaml.5 is missing";
  std::set<std::string> keys;
  std::string line, previous;
  while (std::getline(page, line)) {
    // A key entry: ".TP" then ".B path".
    if (previous == ".TP" && line.starts_with(".B ")) keys.insert(line.substr(3));
    previous = line;
  }
  return keys;
}

TEST(ConfigKeys, EveryListedKeyIsAcceptedWhereItIsListed) {
  for (const std::string& path : keys::all_key_paths()) {
    const auto loaded = load_string(yaml_with(path), "keys.yaml");
    if (loaded) continue;
    for (const ConfigError& error : loaded.error()) {
      EXPECT_EQ(error.message.find("unknown key"), std::string::npos)
          << path << " as " << yaml_with(path) << ": " << error.to_string();
    }
  }
}

TEST(ConfigKeys, AnUnlistedKeyIsRejected) {
  const auto loaded = load_string(yaml_with("subnets[].reservations[].colour"), "keys.yaml");
  ASSERT_FALSE(loaded);
  EXPECT_TRUE(std::any_of(loaded.error().begin(), loaded.error().end(), [](const ConfigError& e) {
    return e.message.find("unknown key 'colour'") != std::string::npos;
  }));
}

// The man page lists the common option names; each must be a real catalogue name (or a BOOTP
// header field, or `custom`), so a renamed catalogue entry fails here.
TEST(ConfigKeys, EveryDocumentedOptionNameIsInTheCatalogue) {
  for (const std::string_view name : keys::kOptions) {
    if (name == "custom" || name == "next-server" || name == "boot-file" || name == "server-hostname") continue;
    EXPECT_NE(find_option(name), nullptr) << name << " is not in the option catalogue";
  }
}

TEST(ConfigKeys, ManPageDocumentsExactlyTheLoadersKeys) {
  const std::set<std::string> documented = documented_keys();
  const auto paths = keys::all_key_paths();
  const std::set<std::string> loaded(paths.begin(), paths.end());
  for (const std::string& key : loaded) {
    EXPECT_TRUE(documented.contains(key)) << "landlord.yaml(5) does not document " << key;
  }
  for (const std::string& key : documented) {
    EXPECT_TRUE(loaded.contains(key)) << "landlord.yaml(5) documents " << key
                                      << ", which the loader does not accept";
  }
}

}  // namespace
}  // namespace landlord::config
