// The catalogue drives the loader and the docs: every name loads with a value of its type, and
// docs/configuration.md carries the catalogue's own table, so neither can drift from the code.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "landlord/config/loader.hpp"
#include "landlord/config/option_catalogue.hpp"

namespace landlord::config {
namespace {

using Bytes = std::vector<std::uint8_t>;

// A YAML value of each type and the bytes it must become.
struct Sample {
  std::string yaml;
  Bytes wire;
};

Sample sample_for(const CatalogueEntry& entry) {
  switch (entry.type) {
    case OptionType::Ip: return {"198.18.0.7", {198, 18, 0, 7}};
    case OptionType::IpList: return {"[198.18.0.7, 198.18.0.8]", {198, 18, 0, 7, 198, 18, 0, 8}};
    case OptionType::IpPairs:
      return {"[\"198.18.3.0 198.18.0.1\"]", {198, 18, 3, 0, 198, 18, 0, 1}};
    case OptionType::U8: return {"9", {9}};
    case OptionType::U16: return {"1500", {0x05, 0xdc}};
    case OptionType::U32: return {"86400", {0, 1, 0x51, 0x80}};
    case OptionType::I32: return {"-1", {0xff, 0xff, 0xff, 0xff}};
    case OptionType::Bool: return {"true", {1}};
    case OptionType::Text: return {"ab", {'a', 'b'}};
    case OptionType::U16List: return {"[576, 1500]", {0x02, 0x40, 0x05, 0xdc}};
    case OptionType::DomainList: return {"[a.test, b.test]", {1, 'a', 4, 't', 'e', 's', 't', 0, 1, 'b', 0xc0, 2}};
    case OptionType::Routes: return {"\"198.18.2.0/24 via 198.18.0.1\"", {24, 198, 18, 2, 198, 18, 0, 1}};
    case OptionType::SipServers: return {"[198.18.0.5]", {1, 198, 18, 0, 5}};
    case OptionType::Fqdn: return {"h.test", {0x0c, 255, 255, 1, 'h', 4, 't', 'e', 's', 't', 0}};
    case OptionType::SubOptions:
      return {"[{code: 1, ip: 198.18.0.1}, {code: 2, text: x}]", {1, 4, 198, 18, 0, 1, 2, 1, 'x'}};
    case OptionType::Hex: return {"\"01:02\"", {1, 2}};
  }
  return {};
}

TEST(OptionCatalogue, EveryNameLoadsWithAValueOfItsType) {
  std::string yaml = "subnets:\n  - subnet: 198.18.0.0/24\n    options:\n";
  for (const auto& entry : option_catalogue()) {
    yaml += "      " + std::string{entry.name} + ": " + sample_for(entry).yaml + "\n";
  }
  const auto loaded = load_string(yaml, "t.yaml");
  ASSERT_TRUE(loaded.has_value()) << format_errors(loaded.error());
  const auto& options = loaded->subnets.at(0).options;
  ASSERT_EQ(options.size(), option_catalogue().size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    const auto& entry = option_catalogue()[i];
    EXPECT_EQ(options[i].code, entry.code) << entry.name;
    EXPECT_EQ(options[i].value, sample_for(entry).wire) << entry.name;
  }
}

TEST(OptionCatalogue, CustomOptionsTakeEveryTypeByName) {
  std::string yaml = "subnets:\n  - subnet: 198.18.0.0/24\n    options:\n      custom:\n";
  int code = 160;
  std::vector<std::pair<int, Bytes>> expected;
  for (const OptionType type : all_types()) {
    const Sample sample = sample_for(CatalogueEntry{"", 0, type});
    yaml += "        - {code: " + std::to_string(code) + ", " + std::string{type_name(type)} + ": " + sample.yaml + "}\n";
    expected.emplace_back(code++, sample.wire);
  }
  const auto loaded = load_string(yaml, "t.yaml");
  ASSERT_TRUE(loaded.has_value()) << format_errors(loaded.error()) << yaml;
  const auto& options = loaded->subnets.at(0).options;
  ASSERT_EQ(options.size(), expected.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    EXPECT_EQ(options[i].code, expected[i].first);
    EXPECT_EQ(options[i].value, expected[i].second) << expected[i].first;
  }
}

TEST(OptionCatalogue, LongDomainSearchListsAreKeptForSplitting) {
  std::string names;
  for (int i = 0; i < 30; ++i) names += (i ? ", " : "") + std::string{"host"} + std::to_string(i) + ".site" + std::to_string(i) + ".test";
  const auto loaded = load_string("subnets:\n  - subnet: 198.18.0.0/24\n    options: {domain-search: [" + names + "]}\n", "t.yaml");
  ASSERT_TRUE(loaded.has_value()) << format_errors(loaded.error());
  EXPECT_GT(loaded->subnets.at(0).options.at(0).value.size(), 255u);  // RFC 3396 splits it
}

std::string read_docs() {
  std::ifstream file{std::filesystem::path{LANDLORD_SOURCE_DIR} / "docs" / "configuration.md"};
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(OptionCatalogue, DocsCarryTheCatalogueTable) {
  const std::string docs = read_docs();
  ASSERT_FALSE(docs.empty());
  EXPECT_NE(docs.find(catalogue_markdown()), std::string::npos)
      << "docs/configuration.md must contain the catalogue table exactly; print it with\n"
         "  landlord --option-table\nand paste it under 'options'. It is:\n"
      << catalogue_markdown();
  for (const auto& entry : option_catalogue()) {
    EXPECT_NE(docs.find("| `" + std::string{entry.name} + "` | " + std::to_string(entry.code) + " |"), std::string::npos)
        << entry.name;
  }
  for (const OptionType type : all_types()) {
    EXPECT_NE(docs.find("| `" + std::string{type_name(type)} + "` |"), std::string::npos) << type_name(type);
  }
}

}  // namespace
}  // namespace landlord::config
