#pragma once
// Field helpers shared by the lease file readers, and the one way a foreign file's bytes are
// shown in a report: escaped and cut short, so a binary file cannot flood or drive a terminal.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace landlord::migrate {

inline std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    fields.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

// Whitespace-separated words.
inline std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> result;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\r') ++i;
    if (i > start) result.push_back(text.substr(start, i - start));
  }
  return result;
}

// A whole decimal integer (an optional '-', digits, nothing else), or nullopt (also on overflow).
inline std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// `text` for a report: printable ASCII as is, other bytes as \xNN, at most `longest`
// characters of that ("..." marks the cut).
inline std::string shown(std::string_view text, std::size_t longest = 60) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = byte >= 0x20 && byte < 0x7f;
    if (out.size() + (plain ? 1 : 4) > longest) return out + "...";
    if (plain) {
      out += c;
    } else {
      out += "\\x";
      out += kDigits[byte >> 4];
      out += kDigits[byte & 0xf];
    }
  }
  return out;
}

// 'text', shown.
inline std::string quoted(std::string_view text) { return "'" + shown(text, 40) + "'"; }

}  // namespace landlord::migrate
