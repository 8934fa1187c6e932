#include "landlord/sim/client_macs.hpp"

#include <fmt/format.h>

#include <array>

#include "landlord/sim/random.hpp"

namespace landlord::sim {

namespace {

constexpr std::uint8_t kLocallyAdministered = 0x02;
constexpr std::uint64_t kMacSpace = std::uint64_t{1} << 48;

std::uint8_t seed_byte(std::uint64_t seed) {
  return static_cast<std::uint8_t>(derive_seed(seed, 0) >> 56);
}

std::optional<std::uint64_t> as_number(const HardwareAddress& mac) {
  if (mac.type() != HardwareAddress::kEthernet || mac.length() != 6) return std::nullopt;
  std::uint64_t value = 0;
  for (const std::uint8_t byte : mac.bytes()) value = value << 8 | byte;
  return value;
}

HardwareAddress from_number(std::uint64_t value) {
  std::array<std::uint8_t, 6> bytes{};
  for (int i = 5; i >= 0; --i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value);
    value >>= 8;
  }
  return HardwareAddress{HardwareAddress::kEthernet, bytes};
}

}  // namespace

HardwareAddress client_mac(std::uint64_t seed, ClientIndex index) {
  const std::array<std::uint8_t, 6> bytes = {kLocallyAdministered,
                                             seed_byte(seed),
                                             static_cast<std::uint8_t>(index >> 24),
                                             static_cast<std::uint8_t>(index >> 16),
                                             static_cast<std::uint8_t>(index >> 8),
                                             static_cast<std::uint8_t>(index)};
  return HardwareAddress{HardwareAddress::kEthernet, bytes};
}

ClientMacs ClientMacs::seeded(std::uint64_t seed) {
  ClientMacs macs;
  macs.kind_ = Kind::Seeded;
  macs.seed_ = seed;
  macs.seed_byte_ = seed_byte(seed);
  return macs;
}

ClientMacs ClientMacs::counted_from(const HardwareAddress& base) {
  ClientMacs macs;
  macs.kind_ = Kind::Counted;
  macs.base_ = as_number(base).value_or(0);
  return macs;
}

ClientMacs ClientMacs::from_list(std::vector<HardwareAddress> list) {
  ClientMacs macs;
  macs.kind_ = Kind::Listed;
  macs.list_ = std::move(list);
  for (std::size_t i = 0; i < macs.list_.size(); ++i) {
    if (const auto number = as_number(macs.list_[i])) {
      macs.listed_index_.emplace(*number, static_cast<ClientIndex>(i));
    }
  }
  return macs;
}

HardwareAddress ClientMacs::mac_of(ClientIndex index) const {
  switch (kind_) {
    case Kind::Seeded: return client_mac(seed_, index);
    case Kind::Counted: return from_number((base_ + index) % kMacSpace);
    case Kind::Listed: return list_.at(index);
  }
  return {};
}

std::optional<ClientIndex> ClientMacs::index_of(const HardwareAddress& chaddr) const {
  const auto number = as_number(chaddr);
  if (!number) return std::nullopt;
  switch (kind_) {
    case Kind::Seeded: {
      const auto bytes = chaddr.bytes();
      if (bytes[0] != kLocallyAdministered || bytes[1] != seed_byte_) return std::nullopt;
      return static_cast<ClientIndex>(*number & 0xffffffffu);
    }
    case Kind::Counted: {
      const std::uint64_t offset = (*number + kMacSpace - base_) % kMacSpace;
      if (offset > 0xffffffffu) return std::nullopt;
      return static_cast<ClientIndex>(offset);
    }
    case Kind::Listed: {
      const auto it = listed_index_.find(*number);
      if (it == listed_index_.end()) return std::nullopt;
      return it->second;
    }
  }
  return std::nullopt;
}

std::size_t ClientMacs::capacity() const {
  switch (kind_) {
    case Kind::Seeded: return std::size_t{1} << 32;
    case Kind::Counted: return static_cast<std::size_t>(kMacSpace - base_);  // no wrapping round
    case Kind::Listed: return list_.size();
  }
  return 0;
}

Expected<std::vector<HardwareAddress>, std::string> parse_mac_list(std::string_view text) {
  std::vector<HardwareAddress> macs;
  std::unordered_map<std::uint64_t, std::size_t> seen;  // MAC -> line
  std::size_t line_number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_number;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty()) continue;
    const auto mac = HardwareAddress::parse(line);
    const auto number = mac ? as_number(*mac) : std::nullopt;
    if (!number) {
      return unexpected(fmt::format("line {}: '{}' is not a MAC (aa:bb:cc:dd:ee:ff)", line_number, line));
    }
    if (const auto [it, fresh] = seen.emplace(*number, line_number); !fresh) {
      return unexpected(
          fmt::format("line {}: {} repeats line {}", line_number, mac->to_string(), it->second));
    }
    macs.push_back(*mac);
  }
  if (macs.empty()) return unexpected(std::string("no MAC in the file"));
  return macs;
}

}  // namespace landlord::sim
