#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "landlord/base/hardware_address.hpp"

namespace landlord {

// Option 61 bytes as the client sent them (type byte included). Opaque to the server.
class ClientId {
 public:
  ClientId() = default;
  explicit ClientId(std::span<const std::uint8_t> bytes)
      : bytes_(reinterpret_cast<const char*>(bytes.data()), bytes.size()) {}

  // "01:02:00:00:00:00:11" colon hex, 1-255 bytes.
  static std::optional<ClientId> parse(std::string_view text);

  std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(bytes_.data()), bytes_.size()};
  }
  bool empty() const { return bytes_.empty(); }
  std::string to_string() const;  // lower-case colon hex
  bool operator==(const ClientId&) const = default;
  const std::string& raw() const { return bytes_; }

 private:
  std::string bytes_;  // short ids stay in the small-string buffer: no heap
};

// How the server knows a client (RFC 2131 §4.2): option 61 when present, else htype+chaddr.
// Encoded as one byte string with a tag so the two kinds can never collide.
class ClientKey {
 public:
  ClientKey() = default;
  static ClientKey from(const ClientId& id, const HardwareAddress& hardware) {
    ClientKey key;
    if (!id.empty()) {
      key.bytes_.reserve(1 + id.raw().size());
      key.bytes_.push_back('i');
      key.bytes_.append(id.raw());
    } else {
      key.bytes_.push_back('h');
      key.bytes_.push_back(static_cast<char>(hardware.type()));
      key.bytes_.append(reinterpret_cast<const char*>(hardware.bytes().data()),
                        hardware.bytes().size());
    }
    return key;
  }
  bool empty() const { return bytes_.empty(); }
  const std::string& raw() const { return bytes_; }
  bool operator==(const ClientKey&) const = default;

 private:
  std::string bytes_;
};

}  // namespace landlord

template <>
struct std::hash<landlord::ClientKey> {
  std::size_t operator()(const landlord::ClientKey& key) const noexcept {
    return std::hash<std::string>{}(key.raw());
  }
};
