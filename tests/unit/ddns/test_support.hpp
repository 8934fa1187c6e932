#pragma once
// Helpers shared by the ddns tests: names from text, the committed testdata files.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "landlord/ddns/name.hpp"

namespace landlord::ddns::testing {

inline Name name(const char* text) {
  auto parsed = Name::from_text(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.has_value() ? *parsed : Name{};
}

inline std::vector<std::uint8_t> read_testdata(const std::string& file) {
  std::ifstream in(std::string(LANDLORD_SOURCE_DIR) + "/tests/unit/ddns/testdata/" + file, std::ios::binary);
  EXPECT_TRUE(in.good()) << file;
  return {std::istreambuf_iterator<char>(in), {}};
}

inline std::string read_text(const std::string& file) {
  const auto bytes = read_testdata(file);
  return {bytes.begin(), bytes.end()};
}

}  // namespace landlord::ddns::testing
