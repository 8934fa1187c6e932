// Seeded random client traffic against a small pool, judged only by invariants: no address
// promised to two clients at once, tokens that never go backwards, the allocator's free counts
// equal to what the lease records say. A failure prints its seed.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "engine_harness.hpp"
#include "landlord/lease/allocator.hpp"

namespace landlord::engine::testing {
namespace {

struct Promise {
  ClientKey client;
  TimePoint until;
  bool offer_only;  // an OFFER, void once the client picks another server
};

class RandomTraffic {
 public:
  explicit RandomTraffic(std::uint32_t seed) : random_(seed), harness_(small_pool()) {}

  void run(int steps) {
    for (int step = 0; step < steps; ++step) {
      act();
      check_allocator_matches_records();
      check_tokens_never_go_back();
      if (::testing::Test::HasFailure()) return;
    }
  }

  const Counters& counters() const { return harness_.engine.counters(); }

 private:
  static config::Config small_pool() {
    config::Config config = make_config();
    config.subnets[0].pools = {{Ipv4{198, 18, 0, 100}, Ipv4{198, 18, 0, 109}}};
    config.subnets[0].lease.time = 20min;
    config.subnets[0].lease.decline_hold = 3min;
    return config;
  }

  std::uint8_t any_client() { return static_cast<std::uint8_t>(1 + random_() % 40); }
  Ipv4 any_address() { return Ipv4{198, 18, 0, static_cast<std::uint8_t>(98 + random_() % 14)}; }
  Ipv4 address_of(std::uint8_t client) {
    const auto lease = harness_.engine.find(key(client));
    return lease ? lease->address : any_address();
  }

  void act() {
    const std::uint8_t client = any_client();
    Outcome outcome;
    switch (random_() % 10) {
      case 0:
      case 1:
        outcome = harness_.discover(client);
        break;
      case 2:
      case 3:
        outcome = harness_.select(client, address_of(client));
        break;
      case 4:
        outcome = harness_.select(client, address_of(client), kOtherServer);
        std::erase_if(promises_, [&](const auto& entry) {
          return entry.second.offer_only && entry.second.client == key(client);
        });
        break;
      case 5:
        outcome = harness_.renew(client, address_of(client));
        break;
      case 6:
        outcome = harness_.init_reboot(client, random_() % 2 ? address_of(client) : any_address());
        break;
      case 7:
        outcome = random_() % 3 ? harness_.release(client, address_of(client))
                                : harness_.decline(client, address_of(client));
        break;
      default:
        for (const auto& record : harness_.advance(Duration{random_() % (6 * 60'000)})) {
          check_store_accepts(record);
        }
        return;
    }
    history_.push_back(std::to_string(unix_ms(harness_.now)) + " client " + std::to_string(client) +
                       ": " + std::string(to_string(outcome.event.kind)) + " " +
                       outcome.event.address.to_string() + " " +
                       (outcome.reply ? outcome.reply->message.yiaddr.to_string() : "-") + " (" +
                       std::string(outcome.event.reason) + ")");
    judge(client, outcome);
  }

  // The store's fencing rule (store/lease_store.hpp): a write needs a higher token than the
  // stored record, or the same token from the same client. Every mutation must pass it.
  void check_store_accepts(const lease::Lease& record) {
    auto [stored, first] = persisted_.try_emplace(record.address.to_uint(), record);
    if (first) return;
    EXPECT_TRUE(record.fencing_token > stored->second.fencing_token ||
                (record.fencing_token == stored->second.fencing_token &&
                 record.client == stored->second.client))
        << record.address.to_string() << " token " << record.fencing_token << " after "
        << stored->second.fencing_token << "\n"
        << recent_history();
    stored->second = record;
  }

  // What a client was told must never contradict what another client was told.
  void judge(std::uint8_t client, const Outcome& outcome) {
    for (const lease::Lease& record : outcome.mutations) check_store_accepts(record);
    if (outcome.event.kind == EventKind::Release || outcome.event.kind == EventKind::Decline) {
      promises_.erase(outcome.event.address.to_uint());
    }
    if (!outcome.reply) return;
    const auto type = outcome.reply->message.type();
    if (type != MessageType::Offer && type != MessageType::Ack) return;
    if (outcome.reply->message.yiaddr.is_zero()) return;  // INFORM
    const Ipv4 address = outcome.reply->message.yiaddr;
    const auto promise = promises_.find(address.to_uint());
    if (promise != promises_.end() && promise->second.client != key(client) &&
        harness_.now < promise->second.until) {
      ADD_FAILURE() << "address " << address.to_string() << " given to client " << int{client}
                    << " while promised to another until " << unix_ms(promise->second.until) << "\n"
                    << recent_history();
    }
    if (type == MessageType::Ack) {
      promises_[address.to_uint()] = {key(client), harness_.now + 20min, false};
      const auto record = harness_.engine.find(address);
      ASSERT_NE(record, std::nullopt);
      EXPECT_EQ(record->client, key(client));
      EXPECT_EQ(record->state, lease::LeaseState::Bound);
    } else if (promise == promises_.end() || promise->second.client != key(client) ||
               promise->second.until < harness_.now + 30s) {
      promises_[address.to_uint()] = {key(client), harness_.now + 30s, true};
    }
  }

  void check_allocator_matches_records() {
    std::uint64_t taken = 0, affinity = 0;
    harness_.engine.for_each_lease([&](const lease::Lease& record) {
      if (record.address < Ipv4{198, 18, 0, 100} || record.address > Ipv4{198, 18, 0, 109}) return;
      switch (lease::Availability::of(&record).kind) {
        case lease::Availability::Kind::Taken:
          ++taken;
          break;
        case lease::Availability::Kind::Affinity:
          ++affinity;
          break;
        case lease::Availability::Kind::Clean:
          break;
      }
    });
    const PoolUsage usage = harness_.engine.pool_usage().at(0);
    EXPECT_EQ(usage.free_affinity, affinity);
    EXPECT_EQ(usage.free_clean, usage.total - taken - affinity);
  }

  void check_tokens_never_go_back() {
    harness_.engine.for_each_lease([&](const lease::Lease& record) {
      auto& highest = tokens_[record.address.to_uint()];
      EXPECT_GE(record.fencing_token, highest) << record.address.to_string();
      highest = std::max(highest, record.fencing_token);
    });
  }

  std::string recent_history() const {
    std::string text;
    const std::size_t from = history_.size() > 40 ? history_.size() - 40 : 0;
    for (std::size_t i = from; i < history_.size(); ++i) text += history_[i] + "\n";
    return text;
  }

  std::vector<std::string> history_;
  std::mt19937 random_;
  Harness harness_;
  std::map<std::uint32_t, Promise> promises_;
  std::map<std::uint32_t, lease::FencingToken> tokens_;
  std::map<std::uint32_t, lease::Lease> persisted_;
};

TEST(RandomTraffic, InvariantsHoldAcrossSeeds) {
  Counters total;
  for (std::uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    RandomTraffic traffic(seed);
    traffic.run(1500);
    if (HasFailure()) return;
    total.grants += traffic.counters().grants;
    total.renewals += traffic.counters().renewals;
    total.naks += traffic.counters().naks;
    total.expirations += traffic.counters().expirations;
    total.pool_exhausted += traffic.counters().pool_exhausted;
    total.releases += traffic.counters().releases;
    total.declines += traffic.counters().declines;
  }
  // The traffic must have reached every corner it is meant to judge.
  EXPECT_GT(total.grants, 0u);
  EXPECT_GT(total.renewals, 0u);
  EXPECT_GT(total.naks, 0u);
  EXPECT_GT(total.expirations, 0u);
  EXPECT_GT(total.pool_exhausted, 0u);
  EXPECT_GT(total.releases, 0u);
  EXPECT_GT(total.declines, 0u);
}

}  // namespace
}  // namespace landlord::engine::testing
