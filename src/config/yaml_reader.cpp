#include "yaml_reader.hpp"

#include <algorithm>
#include <charconv>

namespace landlord::config::detail {

const Field* Section::find(std::string_view name) const {
  for (const auto& field : fields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string_view> nearest(std::string_view word,
                                        std::span<const std::string_view> candidates) {
  // A typo changes a few characters; beyond that the suggestion would only confuse.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string_view> best;
  std::size_t best_distance = 0;
  for (const auto candidate : candidates) {
    // The distance is at least the difference in length: a candidate that cannot be within the
    // limit (or beat the best so far) is not measured, so a long unknown key costs little.
    const std::size_t length_gap = word.size() > candidate.size() ? word.size() - candidate.size()
                                                                  : candidate.size() - word.size();
    if (length_gap > limit || (best && length_gap >= best_distance)) continue;
    const auto distance = edit_distance(word, candidate);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best && best_distance <= limit && best_distance < word.size()) return best;
  return std::nullopt;
}

std::string_view describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Scalar: return "a single value";
    default: return "empty";
  }
}

int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 1; }

void Reader::error(const YAML::Mark& mark, std::string message) {
  ConfigError error;
  error.file = file_;
  if (!mark.is_null()) {
    error.line = mark.line + 1;
    error.column = mark.column + 1;
  }
  error.message = std::move(message);
  errors_.push_back(std::move(error));
}

std::vector<ConfigError> Reader::take_errors() {
  // Stable, so that several errors at one place keep the order they were found in.
  std::stable_sort(errors_.begin(), errors_.end(), [](const auto& a, const auto& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return std::move(errors_);
}

Section Reader::section(const YAML::Node& node, const YAML::Mark& fallback, std::string_view name,
                        std::span<const std::string_view> keys) {
  Section section;
  section.mark = node.IsNull() || node.Mark().is_null() ? fallback : node.Mark();
  if (node.IsNull()) return section;
  if (!node.IsMap()) {
    std::string valid;
    for (const auto key : keys) valid += (valid.empty() ? "" : ", ") + std::string{key};
    error(node.Mark(), "'" + std::string{name} + "' must be a map (keys: " + valid + "), not " +
                           std::string{describe(node)});
    return section;
  }
  for (auto entry = node.begin(); entry != node.end(); ++entry) {
    // A copy: the iterator makes its key/value pair on the fly, so a reference would dangle.
    const YAML::Node key = entry->first;
    if (!key.IsScalar()) {
      error(key.Mark(), "a key in '" + std::string{name} + "' must be a plain word, not " +
                            std::string{describe(key)});
      continue;
    }
    const std::string key_name = key.Scalar();
    if (key_name == "<<" && key.Tag() != "!") {
      // yaml-cpp reads a merge key as an ordinary key named "<<": silently ignoring it would
      // drop every setting it was meant to bring in.
      error(key.Mark(), "YAML merge keys ('<<') are not supported: write the keys out; for "
                        "settings shared by all subnets use the top-level 'lease' and 'options', "
                        "which every subnet inherits");
      continue;
    }
    if (std::find(keys.begin(), keys.end(), key_name) == keys.end()) {
      if (const auto suggestion = nearest(key_name, keys)) {
        error(key.Mark(), "unknown key '" + key_name + "'; did you mean '" + std::string{*suggestion} + "'?");
      } else {
        std::string valid;
        for (const auto candidate : keys) valid += (valid.empty() ? "" : ", ") + std::string{candidate};
        // A key that long is no misspelt landlord key but another file's line (a password
        // file's, say): shown cut, so that a check never echoes a file's contents back.
        constexpr std::size_t kKeyShown = 24;
        const std::string shown = key_name.size() <= kKeyShown ? key_name : key_name.substr(0, kKeyShown) + "...";
        error(key.Mark(), "unknown key '" + shown + "' in '" + std::string{name} +
                              "'; valid keys: " + valid);
      }
      continue;
    }
    if (const auto* first = section.find(key_name)) {
      error(key.Mark(), "duplicate key '" + key_name + "' (first on line " +
                            std::to_string(line_of(first->key.Mark())) + ")");
      continue;
    }
    section.fields.push_back(Field{key_name, key, entry->second});
  }
  return section;
}

std::optional<std::string> Reader::scalar(const YAML::Node& node, std::string_view name) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsNull()) {
    error(node.Mark(), "'" + std::string{name} + "' needs a value");
  } else {
    error(node.Mark(), "'" + std::string{name} + "' must be a single value, not " +
                           std::string{describe(node)});
  }
  return std::nullopt;
}

std::optional<std::string> Reader::scalar(const Field& field) {
  if (field.value.IsNull()) {
    error(field.key.Mark(), "'" + field.name + "' needs a value");
    return std::nullopt;
  }
  return scalar(field.value, field.name);
}

std::optional<std::vector<YAML::Node>> Reader::list(const Field& field) {
  if (field.value.IsNull()) return std::vector<YAML::Node>{};
  if (!field.value.IsSequence()) {
    error(field.value.Mark(), "'" + field.name + "' must be a list ([a, b] or '- ' lines), not " +
                                  std::string{describe(field.value)});
    return std::nullopt;
  }
  return std::vector<YAML::Node>(field.value.begin(), field.value.end());
}

std::optional<std::vector<YAML::Node>> Reader::one_or_list(const Field& field) {
  if (field.value.IsScalar()) return std::vector<YAML::Node>{field.value};
  return list(field);
}

std::optional<Ipv4> Reader::address(const YAML::Node& node, std::string_view name) {
  return parsed(node, name, [](std::string_view text) -> Expected<Ipv4, std::string> {
    if (const auto parsed_address = Ipv4::parse(text)) return *parsed_address;
    return unexpected("'" + std::string{text} + "' is not an IPv4 address");
  });
}

std::optional<Ipv4> Reader::address(const Field& field) {
  if (field.value.IsNull()) {
    error(field.key.Mark(), "'" + field.name + "' needs a value");
    return std::nullopt;
  }
  return address(field.value, field.name);
}

std::optional<std::uint64_t> Reader::unsigned_integer(const Field& field, std::uint64_t min,
                                                      std::uint64_t max) {
  return parsed(field, [&](std::string_view text) -> Expected<std::uint64_t, std::string> {
    std::uint64_t value = 0;
    const auto [end, failure] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || failure != std::errc{} || end != text.data() + text.size()) {
      return unexpected("'" + std::string{text} + "' is not a whole number");
    }
    if (value < min || value > max) {
      return unexpected(std::to_string(value) + " is out of range " + std::to_string(min) + "-" +
                        std::to_string(max));
    }
    return value;
  });
}

std::optional<bool> Reader::boolean(const Field& field) {
  return parsed(field, [](std::string_view text) -> Expected<bool, std::string> {
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    return unexpected("'" + std::string{text} + "' is not true or false");
  });
}

}  // namespace landlord::config::detail
