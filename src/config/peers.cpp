// `peers:`: the landlord servers that share one store and split its new clients between them.
#include <algorithm>

#include "landlord/config/keys.hpp"
#include "landlord/config/values.hpp"
#include "sections.hpp"

namespace landlord::config::detail {
namespace {

// RFC 3074 hashes a client to one of 256 buckets, and bucket % peers picks its server.
constexpr std::size_t kMaxPeers = 256;
// `secs` is 16 bits of seconds on the wire.
constexpr auto kLongestAnswerAllAfter = std::chrono::seconds{65535};

void read_servers(Reader& reader, const Field& entry, PeersSection& peers) {
  const auto items = reader.list(entry);
  if (!items) return;
  for (const auto& item : *items) {
    const auto address = reader.address(item, "servers");
    if (!address) continue;
    if (std::find(peers.servers.begin(), peers.servers.end(), *address) != peers.servers.end()) {
      reader.error(item.Mark(), "'servers': " + address->to_string() + " is listed twice");
    } else {
      peers.servers.push_back(*address);
    }
  }
  if (peers.servers.size() == 1) {
    reader.error(entry.mark(), "'servers' lists one server; peers need at least two");
  } else if (peers.servers.size() > kMaxPeers) {
    reader.error(entry.mark(), "'servers' lists more than 256 servers (RFC 3074 has 256 buckets)");
  }
}

}  // namespace

PeersSection read_peers(Reader& reader, const Field* field, const ServerSection& server,
                        const StoreSection& store) {
  PeersSection peers;
  if (field == nullptr) return peers;
  const auto section = reader.section(*field, keys::kPeers);
  for (const auto& entry : section.fields) {
    if (entry.name == "servers") {
      read_servers(reader, entry, peers);
    } else if (entry.name == "answer-all-after") {
      const auto wait = reader.parsed(entry, parse_duration);
      if (wait && (*wait % std::chrono::seconds{1} != Duration{0} || *wait > kLongestAnswerAllAfter)) {
        reader.error(entry.mark(), "'answer-all-after' must be whole seconds from 0s to 65535s (the 'secs' field)");
      } else if (wait) {
        peers.answer_all_after = *wait;
      }
    }
  }
  if (section.find("servers") == nullptr) {
    reader.error(section.mark, "'peers' needs 'servers': every peer's server-id, in the same order on each");
    return peers;
  }
  if (!peers.enabled()) return peers;
  // Each server finds its own bucket set by its place in the list, so it must be listed by the
  // id it answers with, and the peers must see each other's leases: one shared store.
  if (!server.server_id) {
    reader.error(section.mark, "'peers' needs 'server.server-id': this server's place in 'servers'");
  } else if (std::find(peers.servers.begin(), peers.servers.end(), *server.server_id) == peers.servers.end()) {
    reader.error(section.mark, "'peers.servers' does not list this server's server-id " + server.server_id->to_string());
  }
  if (store.type != StoreSection::Type::Postgresql) {
    reader.error(section.mark, "'peers' needs a store the peers share ('store.type: postgresql'), not " +
                                   std::string{to_string(store.type)});
  }
  return peers;
}

}  // namespace landlord::config::detail
