#include "landlord/ddns/name.hpp"

#include <algorithm>

#include "landlord/base/assert.hpp"

namespace landlord::ddns {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool printable_label_byte(char c) {
  return c > ' ' && c < 0x7f && c != '.' && c != '\\';
}

}  // namespace

Name::Name() : wire_{0} {}

Expected<Name, std::string> Name::from_text(std::string_view text) {
  if (text.empty()) return unexpected(std::string("empty name"));
  if (text == ".") return Name{};
  if (text.back() == '.') text.remove_suffix(1);
  std::vector<std::string> labels;
  while (true) {
    const auto dot = text.find('.');
    const std::string_view label = text.substr(0, dot);
    for (const char c : label) {
      if (!printable_label_byte(c)) {
        return unexpected("name '" + std::string(text) + "': a label holds a character other " +
                          "than printable ASCII");
      }
    }
    labels.emplace_back(label);
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  return from_labels(labels);
}

Expected<Name, std::string> Name::from_labels(const std::vector<std::string>& labels) {
  Name name;
  name.wire_.clear();
  for (const auto& label : labels) {
    if (label.empty()) return unexpected(std::string("empty label"));
    if (label.size() > kMaxLabelLength) {
      return unexpected("label '" + label.substr(0, 16) + "...' longer than 63 bytes");
    }
    name.wire_.push_back(static_cast<std::uint8_t>(label.size()));
    name.wire_.insert(name.wire_.end(), label.begin(), label.end());
  }
  name.wire_.push_back(0);
  if (name.wire_.size() > kMaxNameWireLength) {
    return unexpected(std::string("name longer than 255 bytes in wire form"));
  }
  return name;
}

std::vector<std::string> Name::labels() const {
  std::vector<std::string> labels;
  for (std::size_t at = 0; wire_[at] != 0; at += 1 + wire_[at]) {
    labels.emplace_back(reinterpret_cast<const char*>(&wire_[at + 1]), wire_[at]);
  }
  return labels;
}

std::size_t Name::label_count() const {
  std::size_t count = 0;
  for (std::size_t at = 0; wire_[at] != 0; at += 1 + wire_[at]) ++count;
  return count;
}

std::string Name::to_text() const {
  if (is_root()) return ".";
  std::string text;
  for (const auto& label : labels()) {
    text += label;
    text += '.';
  }
  return text;
}

Name Name::canonical() const {
  Name copy = *this;
  // Length bytes are at most 63, below 'A', so lowering every byte leaves them alone.
  for (auto& byte : copy.wire_) byte = static_cast<std::uint8_t>(lower(static_cast<char>(byte)));
  return copy;
}

Expected<Name, std::string> Name::under(const Name& suffix) const {
  std::vector<std::string> all = labels();
  const auto tail = suffix.labels();
  all.insert(all.end(), tail.begin(), tail.end());
  return from_labels(all);
}

bool Name::is_within(const Name& zone) const {
  if (zone.wire_.size() > wire_.size()) return false;
  // Walk label boundaries: the zone must match at one of them, not in the middle of a label.
  for (std::size_t at = 0;; at += 1 + wire_[at]) {
    if (wire_.size() - at == zone.wire_.size()) {
      return std::equal(zone.wire_.begin(), zone.wire_.end(), wire_.begin() + static_cast<long>(at),
                        [](std::uint8_t a, std::uint8_t b) {
                          return lower(static_cast<char>(a)) == lower(static_cast<char>(b));
                        });
    }
    if (wire_[at] == 0 || wire_.size() - at < zone.wire_.size()) return false;
  }
}

bool Name::operator==(const Name& other) const {
  return wire_.size() == other.wire_.size() && is_within(other);
}

Name reverse_name(Ipv4 address) {
  const std::uint32_t value = address.to_uint();
  std::vector<std::string> labels;
  for (int shift = 0; shift < 32; shift += 8) labels.push_back(std::to_string((value >> shift) & 0xff));
  labels.emplace_back("in-addr");
  labels.emplace_back("arpa");
  auto name = Name::from_labels(labels);
  LANDLORD_ASSERT(name.has_value());
  return *name;
}

Expected<Name, std::string> read_name(std::span<const std::uint8_t> message, std::size_t& offset) {
  constexpr int kMaxPointers = 127;
  Name name;
  name.wire_.clear();
  std::size_t at = offset;
  std::size_t lowest_target = offset;  // every pointer must go below the last place read
  bool jumped = false;
  int pointers = 0;
  while (true) {
    if (at >= message.size()) return unexpected(std::string("name runs past the message"));
    const std::uint8_t length = message[at];
    if ((length & 0xc0) == 0xc0) {
      if (at + 1 >= message.size()) return unexpected(std::string("truncated compression pointer"));
      const std::size_t target = static_cast<std::size_t>(length & 0x3f) << 8 | message[at + 1];
      if (target >= lowest_target) return unexpected(std::string("compression pointer not backwards"));
      if (++pointers > kMaxPointers) return unexpected(std::string("too many compression pointers"));
      if (!jumped) offset = at + 2;
      jumped = true;
      lowest_target = target;
      at = target;
      continue;
    }
    if ((length & 0xc0) != 0) return unexpected(std::string("reserved label type"));
    if (at + 1 + length > message.size()) return unexpected(std::string("label runs past the message"));
    if (name.wire_.size() + 1 + length > kMaxNameWireLength) {
      return unexpected(std::string("name longer than 255 bytes"));
    }
    name.wire_.insert(name.wire_.end(), message.begin() + static_cast<long>(at),
                      message.begin() + static_cast<long>(at + 1 + length));
    at += 1 + length;
    if (length == 0) break;
  }
  if (!jumped) offset = at;
  return name;
}

}  // namespace landlord::ddns
