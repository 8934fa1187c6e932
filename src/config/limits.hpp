#pragma once
// What a config file may hold. The limits sit far above any real network's needs and far below
// what would exhaust the daemon: a file that passes them loads in well under a second and fits
// in memory many times over. Each refusal says which limit and where.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "yaml_reader.hpp"

namespace landlord::config::detail {

inline constexpr std::size_t kMaxFileBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxSubnets = 4096;
inline constexpr std::size_t kMaxPoolsPerSubnet = 256;
inline constexpr std::size_t kMaxReservationsPerSubnet = 65536;
// One pool, and all pools together: 2^24 addresses, a /8 (the allocator's free set for them
// takes 2 MiB). A /1 pool would ask for 2^31.
inline constexpr std::uint64_t kMaxPoolAddresses = std::uint64_t{1} << 24;
// Maps and lists inside each other. A landlord config needs 6 (subnets, a subnet, reservations,
// a reservation, ...); the parser recurses once per level, so this bounds its stack.
inline constexpr std::size_t kMaxNesting = 32;
// Errors `landlord --check` prints before it only counts the rest.
inline constexpr std::size_t kMaxErrorsShown = 20;

// Checks the text before it is parsed: tabs used for indentation (YAML forbids them, and a
// parser's message about it rarely says so), and nesting deeper than kMaxNesting (flow
// brackets and block indentation). Returns false when the text must not reach the parser.
bool check_text(Reader& reader, std::string_view yaml);

}  // namespace landlord::config::detail
