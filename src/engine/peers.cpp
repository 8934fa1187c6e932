// Peers (peers.hpp): who answers what, and who is down.
#include "peers.hpp"

#include <algorithm>

namespace landlord::engine {

bool Peers::answers_here(const SubnetView& view, const wire::Message& message) const {
  const auto& primary = view.subnet->primary;
  if (!primary) {
    return answers_discover(message, *share_, config_.peers.answer_all_after) ||
           down_peer_of(view, message).has_value();
  }
  return *primary == config_.peers.servers[share_->index] ||
         std::chrono::seconds{message.secs} >= config_.peers.answer_all_after ||
         down_peer_of(view, message).has_value();
}

bool Peers::answers_discover_now(const SubnetView& view, const wire::Message& message,
                                 const ClientKey& client, TimePoint now) {
  return answers_here(view, message) ||
         discover_waits_.trying_for(client, now) >= config_.peers.answer_all_after;
}

std::optional<Ipv4> Peers::down_peer_of(const SubnetView& view, const wire::Message& message) const {
  if (!share_ || down_.empty()) return std::nullopt;
  std::optional<Ipv4> owner = view.subnet->primary;
  if (!owner) {
    const auto bucket = client_bucket(message);
    if (!bucket) return std::nullopt;
    owner = config_.peers.servers[*bucket % share_->count];
  }
  if (*owner == config_.peers.servers[share_->index] || !down_.contains(owner->to_uint())) {
    return std::nullopt;
  }
  return owner;
}

// Each confirming server writes the held token plus one (Token::NewEpoch), so the store takes
// exactly one confirmation: one ACK.
bool Peers::shared_store() const {
  return share_.has_value() || config_.store.type == config::StoreSection::Type::Postgresql;
}

bool Peers::answers_reboot(const SubnetView& view, const wire::Message& message, const ClientKey& client,
                           Ipv4 requested, TimePoint now, Counters& counters) {
  const auto last = ledger_.last_lease(requested, client);
  const bool known = last != std::nullopt && last->of_client;
  const bool ours = known ? !ledger_.token_elsewhere(requested) : answers_here(view, message);
  if (ours || std::chrono::seconds{message.secs} >= config_.peers.answer_all_after) return true;
  if (discover_waits_.trying_for(client, now) >= config_.peers.answer_all_after) return true;
  ++(known ? counters.reboots_left_to_holder : counters.reboots_left_to_owner);
  return false;
}

std::vector<Ipv4> Peers::up(std::span<const Ipv4> up) {
  std::vector<Ipv4> changed;
  const auto& servers = config_.peers.servers;
  for (std::size_t index = 0; index < servers.size(); ++index) {
    if (share_ && index == share_->index) continue;  // ourselves
    const Ipv4 server = servers[index];
    const bool down = std::find(up.begin(), up.end(), server) == up.end();
    const bool was_down = down_.contains(server.to_uint());
    if (down == was_down) continue;
    if (down) {
      down_.insert(server.to_uint());
    } else {
      down_.erase(server.to_uint());
    }
    changed.push_back(server);
  }
  return changed;
}

}  // namespace landlord::engine
