#pragma once
// Which name a client gets (RFC 4702, RFC 4703 §4): the Client FQDN option 81, else the
// hostname option 12, else a reservation's hostname; sanitised to RFC 1123 labels, qualified
// with the forward zone, and the server's decision (which updates it does, and the option 81 it
// puts in the reply).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/ddns/name.hpp"
#include "landlord/ddns/settings.hpp"

namespace landlord::ddns {

inline constexpr std::uint8_t kOptionClientFqdn = 81;
inline constexpr std::uint8_t kOptionHostname = 12;

// Option 81's data (after code and length), RFC 4702 §2.
struct ClientFqdn {
  static constexpr std::uint8_t kFlagS = 0x01;  // the server should do the A update
  static constexpr std::uint8_t kFlagO = 0x02;  // the server overrode the client's S
  static constexpr std::uint8_t kFlagE = 0x04;  // canonical wire encoding (else ASCII)
  static constexpr std::uint8_t kFlagN = 0x08;  // no update at all

  std::uint8_t flags = 0;
  std::uint8_t rcode1 = 0;
  std::uint8_t rcode2 = 0;
  std::vector<std::string> labels;  // as sent, not yet sanitised; empty: the server picks
  bool fully_qualified = false;     // a terminal root label (wire) or a trailing dot (ASCII)

  bool s() const { return (flags & kFlagS) != 0; }
  bool o() const { return (flags & kFlagO) != 0; }
  bool e() const { return (flags & kFlagE) != 0; }
  bool n() const { return (flags & kFlagN) != 0; }
};

// Errors: shorter than 3 bytes, N and S both set, a label over 63 bytes or a compression
// pointer in the wire form, a wire name that goes on after its root label, a name over 255.
Expected<ClientFqdn, std::string> parse_client_fqdn(std::span<const std::uint8_t> data);
std::vector<std::uint8_t> encode_client_fqdn(const ClientFqdn& fqdn);

// One label made valid for a host name (RFC 1123 §2.1, RFC 952): lower-cased, every byte
// other than a letter, digit or '-' dropped, leading and trailing '-' trimmed; nullopt when
// nothing is left or more than 63 bytes remain.
std::optional<std::string> sanitise_label(std::string_view raw);

// Sanitised labels, qualified with `zone` unless fully qualified or already under it.
Expected<Name, std::string> qualify(const std::vector<std::string>& raw_labels, bool fully_qualified,
                                    const Name& zone);

// Splits a hostname (option 12 or a reservation): "alpha", "alpha.lab.test", "alpha.lab.test."
std::vector<std::string> split_labels(std::string_view text, bool& fully_qualified);

enum class NameSource { kNone, kClientFqdn, kHostname, kReservation };
const char* name_source_text(NameSource source);

struct NameRequest {
  std::optional<std::span<const std::uint8_t>> client_fqdn;  // option 81's data, when sent
  std::optional<std::string_view> hostname;                  // option 12, when sent
  std::optional<std::string_view> reservation_hostname;
};

struct NameDecision {
  NameSource source = NameSource::kNone;
  std::optional<Name> fqdn;    // the name to update, when there is one
  bool forward = false;        // the server adds the A (and DHCID) in the forward zone
  bool reverse = false;        // the server adds the PTR in the reverse zone
  bool outside_zone = false;   // a full name the forward zone does not cover: no A update
  std::optional<ClientFqdn> reply_fqdn;  // option 81 for the reply when the client sent one
  std::optional<std::string> reply_hostname;  // the name's first label when option 12 was used
  std::string problem;  // why a name the client sent was not usable (for the log), else empty
};

NameDecision decide_name(const Settings& settings, const NameRequest& request);

}  // namespace landlord::ddns
