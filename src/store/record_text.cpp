#include "record_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <vector>

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

std::string_view dns_state_text(lease::DnsState state) {
  switch (state) {
    case lease::DnsState::None: return "none";
    case lease::DnsState::Pending: return "pending";
    case lease::DnsState::Done: return "done";
    case lease::DnsState::Conflict: return "conflict";
    case lease::DnsState::Failed: return "failed";
  }
  LANDLORD_ASSERT(!"unknown DNS state");
  return {};
}

std::optional<lease::DnsState> parse_dns_state(std::string_view text) {
  if (text == "none") return lease::DnsState::None;
  if (text == "pending") return lease::DnsState::Pending;
  if (text == "done") return lease::DnsState::Done;
  if (text == "conflict") return lease::DnsState::Conflict;
  if (text == "failed") return lease::DnsState::Failed;
  return std::nullopt;
}

std::string bytes_text(std::string_view bytes) {
  return to_colon_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
}

std::optional<std::string> parse_bytes_text(std::string_view text) {
  std::string bytes((text.size() + 1) / 3, '\0');
  const auto count = parse_colon_hex(text, {reinterpret_cast<std::uint8_t*>(bytes.data()), bytes.size()});
  if (!count) return std::nullopt;
  bytes.resize(*count);
  return bytes;
}

std::string_view write_client_key_text(const ClientKey& key, std::span<char> out) {
  LANDLORD_ASSERT(out.size() >= client_key_text_bound(key));
  const std::string& raw = key.raw();
  if (raw.empty()) return {out.data(), 0};  // empty text, not SQL NULL
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(raw.data());
  std::span<const std::uint8_t> hex;
  char* next = out.data();
  if (raw.front() == 'i') {
    next = std::copy_n("id:", 3, next);
    hex = {bytes + 1, raw.size() - 1};
  } else {
    LANDLORD_ASSERT(raw.front() == 'h' && raw.size() >= 2);
    next = std::copy_n("hw", 2, next);
    next = std::to_chars(next, next + 3, static_cast<unsigned>(bytes[1])).ptr;
    *next++ = ':';
    hex = {bytes + 2, raw.size() - 2};
  }
  const auto digits = write_colon_hex(hex, out.subspan(static_cast<std::size_t>(next - out.data())));
  return {out.data(), static_cast<std::size_t>(next - out.data()) + digits.size()};
}

std::string client_key_text(const ClientKey& key) {
  std::string text(client_key_text_bound(key), '\0');
  text.resize(write_client_key_text(key, text).size());
  return text;
}

std::optional<ClientId> parse_client_id_text(std::string_view text) {
  std::array<std::uint8_t, 255> bytes;  // every client id of one option instance: no allocation
  std::vector<std::uint8_t> longer;
  std::span<std::uint8_t> out = bytes;
  if (text.size() > colon_hex_size(bytes.size())) {
    longer.resize((text.size() + 1) / 3);
    out = longer;
  }
  const auto count = parse_colon_hex(text, out);
  if (!count) return std::nullopt;
  return ClientId{out.first(*count)};
}

std::optional<ClientKey> parse_client_key(std::string_view text) {
  if (text.empty()) return ClientKey{};
  if (text.starts_with("id:")) {
    auto id = parse_client_id_text(text.substr(3));
    if (!id || id->empty()) return std::nullopt;
    return ClientKey::from(*id, HardwareAddress{});
  }
  std::array<std::uint8_t, HardwareAddress::kMaxLength> bytes;
  if (!text.starts_with("hw")) return std::nullopt;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  unsigned type = 0;
  const auto [end, error] = std::from_chars(text.data() + 2, text.data() + colon, type);
  if (error != std::errc{} || end != text.data() + colon || type > 255) return std::nullopt;
  const auto count = parse_colon_hex(text.substr(colon + 1), bytes);
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
