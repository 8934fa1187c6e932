#pragma once
// Which MAC each simulated client has, and which client a reply's chaddr names. Three ways, as
// perfdhcp offers them: seeded (02:<seed byte>:<index>, the default), counted up from a base
// MAC (--base-mac), or read from a list (--macs FILE, one per line).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/base/hardware_address.hpp"

namespace landlord::sim {

using ClientIndex = std::uint32_t;

// The deterministic MAC of client `index`: locally administered, two seed bytes, then the
// index, so a reply's chaddr names its client without a lookup.
HardwareAddress client_mac(std::uint64_t seed, ClientIndex index);

class ClientMacs {
 public:
  static ClientMacs seeded(std::uint64_t seed);
  // Client i gets base + i, counted over the 48 bits.
  static ClientMacs counted_from(const HardwareAddress& base);
  // Client i gets list[i]; the list is at least as long as the fleet (checked by the caller).
  static ClientMacs from_list(std::vector<HardwareAddress> list);

  HardwareAddress mac_of(ClientIndex index) const;
  // The client a chaddr belongs to, if it is one of ours (the caller checks the index is one
  // that arrived).
  std::optional<ClientIndex> index_of(const HardwareAddress& chaddr) const;
  // How many clients this plan can name.
  std::size_t capacity() const;

 private:
  enum class Kind : std::uint8_t { Seeded, Counted, Listed };
  ClientMacs() = default;

  Kind kind_ = Kind::Seeded;
  std::uint64_t seed_ = 0;
  std::uint8_t seed_byte_ = 0;
  std::uint64_t base_ = 0;  // Counted: the base as a 48-bit number
  std::vector<HardwareAddress> list_;
  std::unordered_map<std::uint64_t, ClientIndex> listed_index_;
};

// A --macs file: one MAC per line (aa:bb:cc:dd:ee:ff or with '-'), blank lines and '#'
// comments skipped; a malformed line or a repeated MAC is an error naming its line.
Expected<std::vector<HardwareAddress>, std::string> parse_mac_list(std::string_view text);

}  // namespace landlord::sim
