#include "landlord/ddns/dhcid.hpp"

#include <openssl/evp.h>

#include "landlord/base/assert.hpp"

namespace landlord::ddns {

DhcidIdentifier dhcid_identifier(const ClientId& client_id, const HardwareAddress& hardware) {
  DhcidIdentifier identifier;
  if (!client_id.empty()) {
    identifier.type = DhcidIdentifierType::kClientId;
    identifier.bytes.assign(client_id.bytes().begin(), client_id.bytes().end());
    return identifier;
  }
  identifier.type = DhcidIdentifierType::kChaddr;
  identifier.bytes.push_back(hardware.type());
  identifier.bytes.insert(identifier.bytes.end(), hardware.bytes().begin(), hardware.bytes().end());
  return identifier;
}

std::vector<std::uint8_t> dhcid_rdata(const DhcidIdentifier& identifier, const Name& fqdn) {
  std::vector<std::uint8_t> input = identifier.bytes;
  const Name canonical = fqdn.canonical();
  input.insert(input.end(), canonical.wire().begin(), canonical.wire().end());
  std::vector<std::uint8_t> rdata(3 + EVP_MAX_MD_SIZE);
  const auto type = static_cast<std::uint16_t>(identifier.type);
  rdata[0] = static_cast<std::uint8_t>(type >> 8);
  rdata[1] = static_cast<std::uint8_t>(type);
  rdata[2] = 1;  // digest type 1: SHA-256
  unsigned length = 0;
  const int ok = EVP_Digest(input.data(), input.size(), rdata.data() + 3, &length, EVP_sha256(), nullptr);
  LANDLORD_ASSERT(ok == 1 && length == 32);
  rdata.resize(3 + length);
  return rdata;
}

}  // namespace landlord::ddns
