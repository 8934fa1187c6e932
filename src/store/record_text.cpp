#include "record_text.hpp"

#include <array>
#include <charconv>
#include <limits>

#include "landlord/base/assert.hpp"

namespace landlord::store::detail {

std::string_view state_text(lease::LeaseState state) {
  switch (state) {
    case lease::LeaseState::Bound: return "bound";
    case lease::LeaseState::Released: return "released";
    case lease::LeaseState::Expired: return "expired";
    case lease::LeaseState::Declined: return "declined";
    case lease::LeaseState::Offered: break;
  }
  LANDLORD_ASSERT(!"offered leases have no stored form");
  return {};
}

std::optional<lease::LeaseState> parse_state(std::string_view text) {
  if (text == "bound") return lease::LeaseState::Bound;
  if (text == "released") return lease::LeaseState::Released;
  if (text == "expired") return lease::LeaseState::Expired;
  if (text == "declined") return lease::LeaseState::Declined;
  return std::nullopt;
}

std::string_view extension_text(lease::Extension extension) {
  switch (extension) {
    case lease::Extension::None: return "none";
    case lease::Extension::Renewing: return "renewing";
    case lease::Extension::Rebinding: return "rebinding";
  }
  LANDLORD_ASSERT(!"unknown extension");
  return {};
}

std::optional<lease::Extension> parse_extension(std::string_view text) {
  if (text == "none") return lease::Extension::None;
  if (text == "renewing") return lease::Extension::Renewing;
  if (text == "rebinding") return lease::Extension::Rebinding;
  return std::nullopt;
}

std::string client_key_text(const ClientKey& key) {
  const std::string& raw = key.raw();
  if (raw.empty()) return {};
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(raw.data());
  if (raw.front() == 'i') return "id:" + to_colon_hex({bytes + 1, raw.size() - 1});
  LANDLORD_ASSERT(raw.front() == 'h' && raw.size() >= 2);
  return "hw" + std::to_string(bytes[1]) + ":" + to_colon_hex({bytes + 2, raw.size() - 2});
}

std::optional<ClientKey> parse_client_key(std::string_view text) {
  if (text.empty()) return ClientKey{};
  std::array<std::uint8_t, 255> bytes;  // only the parsed prefix is read
  if (text.starts_with("id:")) {
    const auto count = parse_colon_hex(text.substr(3), bytes);
    if (!count || *count == 0) return std::nullopt;
    return ClientKey::from(ClientId{std::span{bytes.data(), *count}}, HardwareAddress{});
  }
  if (!text.starts_with("hw")) return std::nullopt;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  unsigned type = 0;
  const auto [end, error] = std::from_chars(text.data() + 2, text.data() + colon, type);
  if (error != std::errc{} || end != text.data() + colon || type > 255) return std::nullopt;
  const auto count =
      parse_colon_hex(text.substr(colon + 1), std::span{bytes.data(), HardwareAddress::kMaxLength});
  if (!count) return std::nullopt;
  return ClientKey::from(ClientId{},
                         HardwareAddress{static_cast<std::uint8_t>(type), {bytes.data(), *count}});
}

void assert_persistable(const lease::Lease& record) {
  LANDLORD_ASSERT(record.state != lease::LeaseState::Offered);
  LANDLORD_ASSERT(record.fencing_token <=
                  static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}

}  // namespace landlord::store::detail
