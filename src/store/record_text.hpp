#pragma once
// The text forms of a lease's fields in the SQLite schema (docs/lease-store.md). They are part of
// the file format, so store owns them rather than borrowing the log's to_string().
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/lease/lease.hpp"
#include "landlord/base/time.hpp"

namespace landlord::store::detail {

std::string_view state_text(lease::LeaseState state);  // "bound", ...; Offered has none
std::optional<lease::LeaseState> parse_state(std::string_view text);

std::string_view extension_text(lease::Extension extension);  // "none", "renewing", "rebinding"
std::optional<lease::Extension> parse_extension(std::string_view text);

// A ClientKey's tagged bytes as text: "id:<colon hex>" (option 61) or "hw<type>:<colon hex>"
// (htype + chaddr); "" for an empty key. Any ClientKey round-trips.
std::string client_key_text(const ClientKey& key);
// The same into `out`, of at least client_key_text_bound(key) characters, allocating nothing.
inline std::size_t client_key_text_bound(const ClientKey& key) {
  return 6 + colon_hex_size(key.raw().size());  // "hw255:" or "id:", then at most every byte
}
std::string_view write_client_key_text(const ClientKey& key, std::span<char> out);
std::optional<ClientKey> parse_client_key(std::string_view text);
// A stored client_id column: colon hex of any length ("" for none). Option 61 joined from
// several instances (RFC 3396) may be longer than one option's 255 bytes, and what the store
// wrote it must read back.
std::optional<ClientId> parse_client_id_text(std::string_view text);

std::string_view dns_state_text(lease::DnsState state);  // "none", "pending", ...
std::optional<lease::DnsState> parse_dns_state(std::string_view text);

// Option 82 (relay_agent_info column) as colon hex, "" for none, and back: any length reads back.
std::string bytes_text(std::string_view bytes);
std::optional<std::string> parse_bytes_text(std::string_view text);

// Records every backend refuses to persist: offers are in-memory holds, and SQLite integers
// are signed 64-bit. Breaking either is a programming error, so they stop the process.
void assert_persistable(const lease::Lease& record);

// Rebuilds one record from a row of the columns every backend reads in the same order:
// address, state, hwtype, hwaddr, client_id, hostname, subnet_id, granted_at_ms, lease_time_ms,
// renew_time_ms, rebind_time_ms, last_extension, fencing_token, client_key, classes, fqdn,
// fqdn_fwd, fqdn_rev, dns_state, relay_agent_info (kDecodedColumns). `text(i)` and
// `integer(i)` read column i; on a bad value, the error names the column.
template <typename Text, typename Integer>
std::optional<std::string> decode_record(lease::Lease& record, Text text, Integer integer);
inline constexpr int kDecodedColumns = 20;

// What a stored time may hold: a lease period starts between 1970 and the year 10000, and lasts
// at most what options 51/58/59 can say (0xfffffffe s; the config refuses longer). So a row
// edited or damaged to hold any 64-bit number is refused by name, never added up into an
// overflow (granted_at + lease_time) by whoever reads the record (found by fuzz_store_rows).
inline constexpr std::int64_t kMaxStoredUnixMs = 253'402'300'799'999;  // 9999-12-31T23:59:59.999Z
inline constexpr std::int64_t kMaxStoredDurationMs = std::int64_t{0xfffffffe} * 1000;


}  // namespace landlord::store::detail

namespace landlord::store::detail {

template <typename Text, typename Integer>
std::optional<std::string> decode_record(lease::Lease& record, Text text, Integer integer) {
  const auto address = Ipv4::parse(text(0));
  if (!address) return "address";
  record.address = *address;
  const auto state = parse_state(text(1));
  if (!state) return "state";
  record.state = *state;
  const std::int64_t hardware_type = integer(2);
  std::array<std::uint8_t, 255> bytes;  // only the parsed prefix is read
  const auto hardware_length =
      parse_colon_hex(text(3), std::span{bytes.data(), HardwareAddress::kMaxLength});
  if (!hardware_length || hardware_type < 0 || hardware_type > 255) return "hwaddr";
  record.hardware = HardwareAddress{static_cast<std::uint8_t>(hardware_type),
                                    std::span{bytes.data(), *hardware_length}};
  auto client_id = parse_client_id_text(text(4));
  if (!client_id) return "client_id";
  record.client_id = std::move(*client_id);
  record.hostname = std::string(text(5));
  record.subnet_id = static_cast<std::uint32_t>(integer(6));
  const std::int64_t granted_at_ms = integer(7);
  if (granted_at_ms < 0 || granted_at_ms > kMaxStoredUnixMs) return "granted_at_ms";
  record.granted_at = time_from_unix_ms(granted_at_ms);
  constexpr std::array<const char*, 3> kDurations{"lease_time_ms", "renew_time_ms", "rebind_time_ms"};
  std::array<Duration, 3> durations;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    const std::int64_t milliseconds = integer(static_cast<int>(8 + i));
    if (milliseconds < 0 || milliseconds > kMaxStoredDurationMs) return kDurations[i];
    durations[i] = Duration{milliseconds};
  }
  record.lease_time = durations[0];
  record.renew_time = durations[1];
  record.rebind_time = durations[2];
  const auto extension = parse_extension(text(11));
  if (!extension) return "last_extension";
  record.last_extension = *extension;
  const std::int64_t token = integer(12);
  if (token < 0) return "fencing_token";
  record.fencing_token = static_cast<lease::FencingToken>(token);
  auto client = parse_client_key(text(13));
  if (!client) return "client_key";
  record.client = std::move(*client);
  record.classes = std::string(text(14));
  record.fqdn = std::string(text(15));
  const std::int64_t forward = integer(16), reverse = integer(17);
  if (forward != 0 && forward != 1) return "fqdn_fwd";
  if (reverse != 0 && reverse != 1) return "fqdn_rev";
  record.dns_sides = {forward == 1, reverse == 1};
  const auto dns_state = parse_dns_state(text(18));
  if (!dns_state) return "dns_state";
  record.dns_state = *dns_state;
  auto relay_agent_info = parse_bytes_text(text(19));
  if (!relay_agent_info) return "relay_agent_info";
  record.relay_agent_info = std::move(*relay_agent_info);
  return std::nullopt;
}

}  // namespace landlord::store::detail
