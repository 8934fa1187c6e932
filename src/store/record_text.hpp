#pragma once
// The text forms of a lease's fields in the SQLite schema (docs/lease-store.md). They are part of
// the file format, so store owns them rather than borrowing the log's to_string().
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hex.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/lease/lease.hpp"

namespace landlord::store::detail {

std::string_view state_text(lease::LeaseState state);  // "bound", ...; Offered has none
std::optional<lease::LeaseState> parse_state(std::string_view text);

std::string_view extension_text(lease::Extension extension);  // "none", "renewing", "rebinding"
std::optional<lease::Extension> parse_extension(std::string_view text);

// A ClientKey's tagged bytes as text: "id:<colon hex>" (option 61) or "hw<type>:<colon hex>"
// (htype + chaddr); "" for an empty key. Any ClientKey round-trips.
std::string client_key_text(const ClientKey& key);
std::optional<ClientKey> parse_client_key(std::string_view text);

// Records every backend refuses to persist: offers are in-memory holds, and SQLite integers
// are signed 64-bit. Breaking either is a programming error, so they stop the process.
void assert_persistable(const lease::Lease& record);

}  // namespace landlord::store::detail
