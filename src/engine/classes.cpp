#include "classes.hpp"

#include <algorithm>

#include "landlord/base/big_endian.hpp"

namespace landlord::engine {
namespace {

namespace option = wire::option;
using Bytes = std::span<const std::uint8_t>;

constexpr std::uint8_t kUserClass = 77;             // RFC 3004
constexpr std::uint8_t kClientArchitecture = 93;    // RFC 4578 §2.1

bool equal(Bytes value, std::string_view text) {
  return std::equal(value.begin(), value.end(), text.begin(), text.end(),
                    [](std::uint8_t byte, char c) { return byte == static_cast<std::uint8_t>(c); });
}

// RFC 3004 §4: a list of (length, data) user classes. Some clients (iPXE) send one bare
// string instead: the whole value counts too.
bool has_user_class(Bytes value, std::string_view wanted) {
  if (equal(value, wanted)) return true;
  while (!value.empty()) {
    const std::size_t length = value[0];
    if (length == 0 || length + 1 > value.size()) return false;
    if (equal(value.subspan(1, length), wanted)) return true;
    value = value.subspan(1 + length);
  }
  return false;
}

bool has_architecture(Bytes value, const std::vector<std::uint16_t>& wanted) {
  for (std::size_t at = 0; at + 1 < value.size(); at += 2) {
    const std::uint16_t type = load_be16(&value[at]);
    if (std::find(wanted.begin(), wanted.end(), type) != wanted.end()) return true;
  }
  return false;
}

// Each condition of `match` whose fact the message carries must hold. A condition on a fact it
// lacks (no option 60, 77, 93 or 82, giaddr 0) fails, unless `absent` is Absent::Holds.
enum class Absent : std::uint8_t { Fails, Holds };

bool matches(const config::ClassMatch& match, const wire::Message& message, Absent absent) {
  const wire::Options& options = message.options;
  const bool lacking_holds = absent == Absent::Holds;
  if (match.vendor_class_prefix && !(lacking_holds && !options.has(option::kVendorClass))) {
    const auto vendor = options.get(option::kVendorClass);
    const std::string_view prefix = *match.vendor_class_prefix;
    if (vendor.size() < prefix.size() || !equal(vendor.first(prefix.size()), prefix)) return false;
  }
  if (match.user_class && !(lacking_holds && !options.has(kUserClass)) &&
      !has_user_class(options.get(kUserClass), *match.user_class)) {
    return false;
  }
  if (!match.client_architectures.empty() && !(lacking_holds && !options.has(kClientArchitecture)) &&
      !has_architecture(options.get(kClientArchitecture), match.client_architectures)) {
    return false;
  }
  if ((match.circuit_id || match.remote_id) && !(lacking_holds && !options.has(option::kRelayAgentInfo))) {
    const auto info = wire::parse_relay_agent_info(options.get(option::kRelayAgentInfo));
    if (!info || !options.has(option::kRelayAgentInfo)) return false;
    const auto same = [](Bytes got, const std::vector<std::uint8_t>& wanted) {
      return std::equal(got.begin(), got.end(), wanted.begin(), wanted.end());
    };
    if (match.circuit_id && !same(info->circuit_id, *match.circuit_id)) return false;
    if (match.remote_id && !same(info->remote_id, *match.remote_id)) return false;
  }
  if (match.hardware_prefix) {
    const auto& prefix = *match.hardware_prefix;
    if (message.hlen < prefix.size() || !std::equal(prefix.begin(), prefix.end(), message.chaddr.begin())) {
      return false;
    }
  }
  if (match.giaddr && !(lacking_holds && message.giaddr.is_zero()) &&
      (message.giaddr.is_zero() || !match.giaddr->contains(message.giaddr))) {
    return false;
  }
  return true;
}

}  // namespace

std::uint64_t class_membership(std::span<const config::ClientClass> classes, const wire::Message& message) {
  std::uint64_t member_of = 0;
  for (std::size_t index = 0; index < classes.size(); ++index) {
    if (matches(classes[index].match, message, Absent::Fails)) member_of |= std::uint64_t{1} << index;
  }
  return member_of;
}

std::uint64_t uncontradicted(std::span<const config::ClientClass> classes, const wire::Message& message,
                             std::uint64_t candidates) {
  std::uint64_t kept = 0;
  for (std::size_t index = 0; index < classes.size(); ++index) {
    const std::uint64_t bit = std::uint64_t{1} << index;
    if ((candidates & bit) != 0 && matches(classes[index].match, message, Absent::Holds)) kept |= bit;
  }
  return kept;
}

}  // namespace landlord::engine
