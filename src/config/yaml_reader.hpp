#pragma once
// Reading YAML nodes with every mistake recorded at its place instead of thrown: the loader
// keeps going after an error so one run of `landlord --check` shows all of them.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "landlord/base/expected.hpp"
#include "landlord/config/loader.hpp"

namespace landlord::config::detail {

// One `key: value` entry of a map.
struct Field {
  std::string name;
  YAML::Node key;
  YAML::Node value;
  // Where to point for a bad value: the value, or its key when the value is empty (yaml-cpp
  // places an empty value at the next token, possibly lines below).
  YAML::Mark mark() const { return value.IsNull() ? key.Mark() : value.Mark(); }
};

// A map whose keys were checked against the keys allowed there.
struct Section {
  YAML::Mark mark;  // where the map is: the place to report a missing key
  std::vector<Field> fields;
  const Field* find(std::string_view name) const;
};

// Plain edit distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The closest of `candidates` to `word`, if close enough to be a likely typo.
std::optional<std::string_view> nearest(std::string_view word,
                                        std::span<const std::string_view> candidates);
inline std::optional<std::string_view> nearest(std::string_view word,
                                               std::initializer_list<std::string_view> candidates) {
  return nearest(word, std::span{candidates.begin(), candidates.size()});
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  void error(const YAML::Mark& mark, std::string message);
  bool failed() const { return !errors_.empty(); }
  std::vector<ConfigError> take_errors();
  const std::string& file() const { return file_; }

  // A map with only `keys` allowed: an unknown key gets a "did you mean", a duplicate key an
  // error. An empty value reads as an empty map; any other non-map is an error (empty result).
  Section section(const YAML::Node& node, const YAML::Mark& fallback, std::string_view name,
                  std::span<const std::string_view> keys);
  Section section(const Field& field, std::span<const std::string_view> keys) {
    return section(field.value, field.key.Mark(), field.name, keys);
  }

  // The value as text; an error when it is empty, a list or a map.
  std::optional<std::string> scalar(const Field& field);
  std::optional<std::string> scalar(const YAML::Node& node, std::string_view name);

  // The items of a list; an empty value is an empty list; any other non-list is an error.
  std::optional<std::vector<YAML::Node>> list(const Field& field);
  // Like list(), but one bare value also counts as a list of one ("routers: 198.18.0.1").
  std::optional<std::vector<YAML::Node>> one_or_list(const Field& field);

  // The value parsed by `parse` (Expected<T, std::string>(std::string_view)); its error
  // message is reported as "'name': message".
  template <typename Parse>
  auto parsed(const YAML::Node& node, std::string_view name, Parse&& parse)
      -> std::optional<std::decay_t<decltype(*parse(std::string_view{}))>> {
    const auto text = scalar(node, name);
    if (!text) return std::nullopt;
    auto result = parse(std::string_view{*text});
    if (!result) {
      error(node.Mark(), "'" + std::string{name} + "': " + result.error());
      return std::nullopt;
    }
    return std::move(*result);
  }
  template <typename Parse>
  auto parsed(const Field& field, Parse&& parse) {
    using Result = decltype(parsed(field.value, field.name, parse));
    if (field.value.IsNull()) {
      error(field.key.Mark(), "'" + field.name + "' needs a value");
      return Result{};
    }
    return parsed(field.value, field.name, parse);
  }

  std::optional<Ipv4> address(const YAML::Node& node, std::string_view name);
  std::optional<Ipv4> address(const Field& field);
  std::optional<std::uint64_t> unsigned_integer(const Field& field, std::uint64_t min,
                                                std::uint64_t max);
  std::optional<bool> boolean(const Field& field);

 private:
  std::string file_;
  std::vector<ConfigError> errors_;
};

// "a list", "a map", ... for "must be X, not Y" messages.
std::string_view describe(const YAML::Node& node);
int line_of(const YAML::Mark& mark);  // 1-based, 0 if unknown

}  // namespace landlord::config::detail
