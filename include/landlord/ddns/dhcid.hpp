#pragma once
// The DHCID resource record (RFC 4701): who owns a name. Its RDATA is the identifier type, the
// digest type (1, SHA-256) and SHA-256(identifier || FQDN in canonical wire form), so the same
// client and name always give the same record and another client never does.
#include <cstdint>
#include <span>
#include <vector>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/ddns/name.hpp"

namespace landlord::ddns {

enum class DhcidIdentifierType : std::uint16_t { kChaddr = 0, kClientId = 1, kDuid = 2 };

struct DhcidIdentifier {
  DhcidIdentifierType type = DhcidIdentifierType::kChaddr;
  std::vector<std::uint8_t> bytes;  // htype + chaddr; option 61's data; or a DUID
  bool operator==(const DhcidIdentifier&) const = default;
};

// RFC 4701 §3.3: the client identifier (option 61) when the client sent one, else the
// hardware type and address.
DhcidIdentifier dhcid_identifier(const ClientId& client_id, const HardwareAddress& hardware);

std::vector<std::uint8_t> dhcid_rdata(const DhcidIdentifier& identifier, const Name& fqdn);

}  // namespace landlord::ddns
