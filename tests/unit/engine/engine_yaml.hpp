#pragma once
// Test support for engine tests whose config reads best as YAML (the operator's own form):
// load_yaml parses it as the daemon would (landlord_config_yaml).
#include <gtest/gtest.h>

#include <string_view>

#include "engine_harness.hpp"
#include "landlord/config/loader.hpp"

namespace landlord::engine::testing {

// The config in `yaml`; a config that does not load fails the test and gives make_config().
inline config::Config load_yaml(std::string_view yaml) {
  auto loaded = config::load_string(yaml, "t.yaml");
  if (!loaded) {
    ADD_FAILURE() << config::format_errors(loaded.error());
    return make_config();
  }
  return std::move(*loaded);
}

}  // namespace landlord::engine::testing
