#pragma once
// RFC 3074 load balancing between peers (config::PeersSection), sans I/O: the hash of a client
// to one of 256 buckets, and which peer answers that client's DISCOVER.
#include <cstdint>
#include <optional>
#include <span>

#include "landlord/config/config.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

// RFC 3074 §6: Pearson's hash over the key with the RFC's mixing table, seeded with the key's
// length, read from the last byte to the first.
std::uint8_t load_balance_hash(std::span<const std::uint8_t> key);

// The bucket of the client that sent `message`: the hash of option 61's bytes when present,
// else of chaddr (hlen bytes). None without either.
std::optional<std::uint8_t> client_bucket(const wire::Message& message);

// This server's place among its peers: index into config.peers.servers (none: no peers, or its
// server-id is not listed, which the loader refuses).
struct PeerShare {
  std::uint32_t index = 0, count = 1;
};
std::optional<PeerShare> peer_share(const config::Config& config);

// Whether this server answers the DISCOVER: its bucket is ours (bucket % count == index, as Kea's
// HA load balancing does), or the client has been trying for peers.answer_all_after (its peer may
// be down). A message with neither client identifier nor chaddr is answered by everyone.
bool answers_discover(const wire::Message& message, PeerShare share, Duration answer_all_after);

}  // namespace landlord::engine
