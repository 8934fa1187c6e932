#include "landlord/base/hardware_address.hpp"

#include <functional>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hex.hpp"

namespace landlord {

HardwareAddress::HardwareAddress(std::uint8_t type, std::span<const std::uint8_t> bytes)
    : type_(type), length_(static_cast<std::uint8_t>(std::min(bytes.size(), kMaxLength))) {
  std::copy_n(bytes.begin(), length_, bytes_.begin());
}

std::optional<HardwareAddress> HardwareAddress::parse(std::string_view text) {
  std::array<std::uint8_t, kMaxLength> bytes;
  const auto length = parse_colon_hex(text, bytes);
  if (!length || *length == 0) return std::nullopt;
  return HardwareAddress{kEthernet, std::span{bytes.data(), *length}};
}

std::string HardwareAddress::to_string() const { return to_colon_hex(bytes()); }

std::optional<ClientId> ClientId::parse(std::string_view text) {
  std::array<std::uint8_t, 255> bytes;
  const auto length = parse_colon_hex(text, bytes);
  if (!length || *length == 0) return std::nullopt;
  return ClientId{std::span{bytes.data(), *length}};
}

std::string ClientId::to_string() const { return to_colon_hex(bytes()); }

}  // namespace landlord

std::size_t std::hash<landlord::HardwareAddress>::operator()(
    const landlord::HardwareAddress& address) const noexcept {
  const auto bytes = address.bytes();
  std::size_t value = 1469598103934665603ull ^ address.type();  // FNV-1a
  for (const auto byte : bytes) value = (value ^ byte) * 1099511628211ull;
  return value;
}
