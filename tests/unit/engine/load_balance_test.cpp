// RFC 3074 load balancing between peers: the hash (vectors from RFC 3074 §6's function and
// mixing table), the split of clients, and the engine answering only its own DISCOVERs while
// still answering any REQUEST for a lease it knows.
#include "landlord/engine/load_balance.hpp"

#include <array>
#include <set>

#include "engine_harness.hpp"
#include "landlord/config/loader.hpp"

namespace landlord::engine::testing {
namespace {

std::uint8_t hash_of(std::initializer_list<std::uint8_t> key) {
  return load_balance_hash(std::span<const std::uint8_t>{key.begin(), key.size()});
}

// Expected values worked through RFC 3074 §6's C function (hash seeded with the key length,
// bytes from last to first, hash = table[hash ^ byte]) with its table, by a separate script:
// e.g. {0x00}: hash 1, table[1 ^ 0] = 175.
TEST(LoadBalanceHash, MatchesRfc3074ForKnownKeys) {
  EXPECT_EQ(hash_of({}), 0);
  EXPECT_EQ(hash_of({0x00}), 175);
  EXPECT_EQ(hash_of({0x01}), 251);
  EXPECT_EQ(hash_of({0x00, 0x00, 0x5e, 0x00, 0x53, 0x01}), 175);
  EXPECT_EQ(hash_of({0x02, 0x00, 0x00, 0x00, 0x00, 0x01}), 133);
  EXPECT_EQ(hash_of({0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01}), 14);
  EXPECT_EQ(hash_of({'l', 'a', 'n', 'd', 'l', 'o', 'r', 'd'}), 210);
}

TEST(LoadBalanceHash, EveryBucketIsReachedByOneByteKeys) {
  // One-byte keys hash to table[1 ^ byte]: the table is a permutation, so all 256 buckets.
  std::set<std::uint8_t> buckets;
  for (int byte = 0; byte < 256; ++byte) buckets.insert(hash_of({static_cast<std::uint8_t>(byte)}));
  EXPECT_EQ(buckets.size(), 256u);
}

TEST(LoadBalanceHash, TheClientIdentifierIsHashedBeforeChaddr) {
  auto message = client_message(MessageType::Discover, 1);  // chaddr 02:00:00:00:00:01
  EXPECT_EQ(client_bucket(message), 133);
  const std::array<std::uint8_t, 7> id{0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  ASSERT_TRUE(message.options.set(option::kClientId, id));
  EXPECT_EQ(client_bucket(message), 14);
  message.options = {};
  message.hlen = 0;
  EXPECT_EQ(client_bucket(message), std::nullopt);
}

TEST(LoadBalanceHash, TwoPeersSplitClientsIntoDisjointHalves) {
  int first = 0, second = 0;
  for (int client = 0; client < 2000; ++client) {
    auto message = client_message(MessageType::Discover, 0);
    message.chaddr[4] = static_cast<std::uint8_t>(client >> 8);
    message.chaddr[5] = static_cast<std::uint8_t>(client);
    const bool by_first = answers_discover(message, {0, 2}, 3s);
    const bool by_second = answers_discover(message, {1, 2}, 3s);
    ASSERT_NE(by_first, by_second) << "client " << client << ": exactly one peer answers";
    (by_first ? first : second) += 1;
    message.secs = 3;  // trying for answer-all-after: both answer
    EXPECT_TRUE(answers_discover(message, {0, 2}, 3s) && answers_discover(message, {1, 2}, 3s));
  }
  EXPECT_GT(first, 800);
  EXPECT_GT(second, 800);
}

config::Config peer_config(Ipv4 own) {
  config::Config config = make_config();
  config.server.server_id = own;
  config.peers.servers = {kServerAddress, kOtherServer};
  return config;
}

// Clients (by the last byte of their MAC) whose bucket is even (first peer) and odd (second).
std::pair<std::uint8_t, std::uint8_t> one_client_of_each_peer() {
  std::optional<std::uint8_t> even, odd;
  for (int last = 1; last < 256 && !(even && odd); ++last) {
    const auto bucket = client_bucket(client_message(MessageType::Discover, static_cast<std::uint8_t>(last)));
    (*bucket % 2 == 0 ? even : odd) = static_cast<std::uint8_t>(last);
  }
  return {*even, *odd};
}

TEST(Peers, EachServerOffersOnlyToItsOwnBucketsUnlessTheClientHasWaited) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  Harness second{peer_config(kOtherServer)};
  EXPECT_EQ(reply_type(first.discover(ours)), MessageType::Offer);
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  EXPECT_EQ(first.engine.counters().left_to_peers, 1u);
  EXPECT_EQ(reply_type(second.discover(theirs)), MessageType::Offer);
  EXPECT_EQ(reply_type(second.discover(ours)), std::nullopt);
  // The peer that owns the client may be down: after answer-all-after, anyone answers.
  auto waited = client_message(MessageType::Discover, theirs);
  waited.secs = 3;
  EXPECT_EQ(reply_type(first.send(waited)), MessageType::Offer);
}

// A peer the shared store says is down (its session ended: killed, cut off) has its new
// clients answered at once, secs 0 and all; once it is back they are its own again. Our own
// entry in the list is ignored (we are up, whatever a read says).
TEST(Peers, APeerTheStoreSaysIsDownHasItsClientsAnsweredAtOnce) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  EXPECT_TRUE(first.engine.peers_up(std::vector<Ipv4>{kServerAddress, kOtherServer}).empty());
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  EXPECT_EQ(first.engine.peers_up(std::vector<Ipv4>{}), std::vector<Ipv4>{kOtherServer});
  const Outcome served = first.discover(theirs);
  EXPECT_EQ(reply_type(served), MessageType::Offer);  // secs 0, at once
  EXPECT_EQ(served.event.reason, "offered for its peer, which is down");  // said in the log
  const Outcome own = first.discover(ours);
  EXPECT_EQ(reply_type(own), MessageType::Offer);
  EXPECT_EQ(own.event.reason, "offered");
  EXPECT_EQ(first.engine.peers_up(std::vector<Ipv4>{kOtherServer}), std::vector<Ipv4>{kOtherServer});
  // Back: a server that had not offered to the client yet leaves it to the peer again.
  Harness again{peer_config(kServerAddress)};
  again.engine.peers_up(std::vector<Ipv4>{});
  again.engine.peers_up(std::vector<Ipv4>{kOtherServer});
  EXPECT_EQ(reply_type(again.discover(theirs)), std::nullopt);
}

// A client that leaves `secs` at 0 (some embedded stacks, some PXE ROMs) never reaches
// answer-all-after by secs: the server counts from the first DISCOVER of it that it left to the
// peer, and answers once the client has been trying that long.
TEST(Peers, AClientThatAlwaysSendsSecsZeroIsAnsweredOnceItHasTriedLongEnough) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);  // secs = 0 each time
  first.now += 2s;
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  first.now += 1s;  // 3 s since the first: answer-all-after
  EXPECT_EQ(reply_type(first.discover(theirs)), MessageType::Offer);
  EXPECT_EQ(first.engine.counters().left_to_peers, 2u);
  (void)ours;
}

// A client its peer served (its REQUEST, broadcast in SELECTING, reaches us too) and one silent
// for longer than DHCP's longest retransmission wait (64 s) start over: a later DISCOVER of
// theirs is the peer's again, not answered by both.
TEST(Peers, AClientThatWasServedOrWentSilentStartsOver) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  first.select(theirs, Ipv4{198, 18, 0, 150}, kOtherServer);  // the peer's OFFER was taken
  first.now += 5s;
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  first.now += 71s;
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  first.now += 2s;
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  first.now += 1s;
  EXPECT_EQ(reply_type(first.discover(theirs)), MessageType::Offer);
  (void)ours;
}

// What the server remembers is bounded (16,384 clients): past that a new client is not timed
// (it is answered only by its peer, or once its secs say so), until silent ones age out.
TEST(Peers, TheFirstSeenTimesAreBounded) {
  Harness first{peer_config(kServerAddress)};
  const auto peers_client = [](int index) {
    auto message = client_message(MessageType::Discover, 0);
    message.chaddr[3] = static_cast<std::uint8_t>(index >> 16);
    message.chaddr[4] = static_cast<std::uint8_t>(index >> 8);
    message.chaddr[5] = static_cast<std::uint8_t>(index);
    return message;
  };
  int index = 0;
  for (int remembered = 0; remembered < 16384; ++index) {
    const auto message = peers_client(index);
    if (*client_bucket(message) % 2 == 0) continue;  // ours: never timed
    ASSERT_EQ(reply_type(first.send(message)), std::nullopt);
    ++remembered;
  }
  auto late = peers_client(index);
  while (*client_bucket(late) % 2 == 0) late = peers_client(++index);
  EXPECT_EQ(reply_type(first.send(late)), std::nullopt);
  first.now += 4s;
  EXPECT_EQ(reply_type(first.send(late)), std::nullopt);  // not remembered: the table was full
  first.now += 71s;  // the others fell silent: the next new client sweeps them out
  EXPECT_EQ(reply_type(first.send(late)), std::nullopt);
  first.now += 3s;
  EXPECT_EQ(reply_type(first.send(late)), MessageType::Offer);
}

// Peers whose subnets all name the second server their primary.
config::Config with_primary(Ipv4 own) {
  config::Config config = peer_config(own);
  for (auto& subnet : config.subnets) subnet.primary = kOtherServer;
  return config;
}

// A subnet with a configured primary: its new clients are the primary's whatever their bucket;
// the other peer answers them only once they have tried for answer-all-after.
TEST(Peers, ASubnetsPrimaryAnswersAllItsNewClients) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{with_primary(kServerAddress)};
  Harness second{with_primary(kOtherServer)};
  EXPECT_EQ(reply_type(first.discover(ours)), std::nullopt);  // ours by hash, not by subnet
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  EXPECT_EQ(reply_type(second.discover(ours)), MessageType::Offer);
  EXPECT_EQ(reply_type(second.discover(theirs)), MessageType::Offer);
  auto waited = client_message(MessageType::Discover, ours);
  waited.secs = 3;  // the primary may be down
  EXPECT_EQ(reply_type(first.send(waited)), MessageType::Offer);
}

// The same for a subnet whose primary is down: the other server answers its new clients at once.
TEST(Peers, ASubnetWhosePrimaryIsDownIsAnsweredByTheOtherAtOnce) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{with_primary(kServerAddress)};
  first.engine.peers_up(std::vector<Ipv4>{kServerAddress});  // not the primary: it is down
  EXPECT_EQ(reply_type(first.discover(ours)), MessageType::Offer);
  EXPECT_EQ(reply_type(first.discover(theirs)), MessageType::Offer);
  Harness second{with_primary(kServerAddress)};
  EXPECT_EQ(reply_type(second.discover(ours)), std::nullopt);  // told nothing: the primary is up
}

// The primary decides only who OFFERs to new clients: the other server still takes over a
// client of the primary's at T2 (its REBINDING broadcast), and a client left to the primary that
// never sets `secs` is answered once it has tried for answer-all-after.
TEST(Peers, TheOtherServerStillTakesOverARebindingClientOfThePrimarys) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness primary{with_primary(kOtherServer)};
  Harness other{with_primary(kServerAddress)};
  const Outcome offer = primary.discover(ours);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  const Ipv4 address = offer.reply->message.yiaddr;
  const Outcome ack = primary.select(ours, address, kOtherServer);
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  for (const auto& record : ack.mutations) other.engine.observe(record);  // its change feed
  other.now += 53min;  // past T2 of the 1 h lease: the primary did not answer the renewals
  const Outcome taken_over = other.rebind(ours, address);
  ASSERT_EQ(reply_type(taken_over), MessageType::Ack);
  EXPECT_EQ(taken_over.reply->message.yiaddr, address);
  EXPECT_EQ(other.engine.counters().rebinds, 1u);
  EXPECT_EQ(reply_type(other.discover(theirs)), std::nullopt);  // new clients: still the primary's
  other.now += 3s;
  EXPECT_EQ(reply_type(other.discover(theirs)), MessageType::Offer);  // tried for answer-all-after
}

// The lease as the other server's change feed brings it: the row names the server whose token
// it is (the store writes the writer; the engine's own records leave it to the store).
void feed(Harness& to, const Outcome& from, Ipv4 writer) {
  for (lease::Lease record : from.mutations) {
    record.writer = writer;
    to.engine.observe(record);
  }
}

// No reply, nothing written, and the reason says it is left to a peer.
bool left_to_peer(const Outcome& outcome) {
  return !outcome.reply && outcome.mutations.empty() && outcome.event.kind == EventKind::Ignore &&
         outcome.event.reason.starts_with("INIT-REBOOT left to the peer");
}

// A broadcast INIT-REBOOT reaches both peers. The server whose token the lease is answers at
// once and writes the next token; the other leaves it until the client has been
// trying for answer-all-after by `secs` or as it saw it, then confirms with the same next token:
// if both answer (the holder slow, not dead), the store takes exactly one of the two writes.
TEST(Peers, AnInitRebootIsAnsweredByTheServerWhoseTokenTheLeaseIs) {
  for (const bool primary_configured : {false, true}) {
    SCOPED_TRACE(primary_configured ? "subnet primary: the other server" : "hash split");
    const auto [ours, theirs] = one_client_of_each_peer();
    // The client is the first server's by hash, and the second's when the subnet names the second
    // its primary: the holder answers either way, not the split owner.
    Harness holder{primary_configured ? with_primary(kServerAddress) : peer_config(kServerAddress)};
    Harness other{primary_configured ? with_primary(kOtherServer) : peer_config(kOtherServer)};
    auto discover = client_message(MessageType::Discover, ours);
    discover.secs = 10;  // answered by the holder whoever's client it is
    const Outcome offer = holder.send(discover);
    ASSERT_EQ(reply_type(offer), MessageType::Offer);
    const Ipv4 address = offer.reply->message.yiaddr;
    const Outcome ack = holder.select(ours, address);
    ASSERT_EQ(reply_type(ack), MessageType::Ack);
    const lease::FencingToken granted = ack.mutations.at(0).fencing_token;
    feed(other, ack, kServerAddress);
    holder.now += 10min;
    other.now += 10min;

    const Outcome silent = other.init_reboot(ours, address);
    EXPECT_EQ(reply_type(silent), std::nullopt) << "the lease is the holder's";
    EXPECT_TRUE(silent.mutations.empty());
    EXPECT_TRUE(left_to_peer(silent));
    EXPECT_EQ(other.engine.counters().reboots_left_to_holder, 1u);
    EXPECT_EQ(other.engine.counters().reboots_left_to_owner, 0u);

    const Outcome confirmed = holder.init_reboot(ours, address);
    ASSERT_EQ(reply_type(confirmed), MessageType::Ack);
    EXPECT_EQ(confirmed.reply->message.yiaddr, address);
    ASSERT_EQ(confirmed.mutations.size(), 1u);
    EXPECT_EQ(confirmed.mutations[0].fencing_token, granted + 1) << "a new epoch, as a rebind";

    // The holder may be down: the client's `secs` says it has waited answer-all-after.
    const Outcome late = other.init_reboot(ours, address, 3);
    ASSERT_EQ(reply_type(late), MessageType::Ack);
    ASSERT_EQ(late.mutations.size(), 1u);
    EXPECT_EQ(late.mutations[0].fencing_token, granted + 1) << "the same token as the holder's";

    // Neither does the other server answer the holder's client that leaves `secs` at 0 until it
    // has seen it retry for answer-all-after.
    Harness third{peer_config(kOtherServer)};
    feed(third, ack, kServerAddress);
    third.now = other.now;
    EXPECT_TRUE(left_to_peer(third.init_reboot(ours, address)));
    third.now += 2s;
    EXPECT_TRUE(left_to_peer(third.init_reboot(ours, address)));
    third.now += 1s;
    const Outcome waited = third.init_reboot(ours, address);
    ASSERT_EQ(reply_type(waited), MessageType::Ack);
    EXPECT_EQ(third.engine.counters().reboots_left_to_holder, 2u) << "answered ones are not counted";
    EXPECT_EQ(waited.mutations.at(0).fencing_token, granted + 1);
    (void)theirs;
  }
}

// An INIT-REBOOT for a lease neither server knows (granted by a server no longer there, lost):
// answered — granted or NAKed — by the server that answers the client's DISCOVER only; its peer
// stays silent until answer-all-after. A NAK is one answer too: a peer with a stale view must not
// NAK a client its holder confirms.
TEST(Peers, AnInitRebootForAnUnknownLeaseIsAnsweredByTheClientsPeer) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  Harness second{peer_config(kOtherServer)};
  const Ipv4 free_address{198, 18, 0, 120};
  EXPECT_TRUE(left_to_peer(second.init_reboot(ours, free_address)));
  const Outcome granted = first.init_reboot(ours, free_address);
  ASSERT_EQ(reply_type(granted), MessageType::Ack) << "authoritative: a free address is granted";
  EXPECT_EQ(granted.mutations.at(0).fencing_token, 1u);
  const Ipv4 wrong_link{198, 18, 7, 7};
  EXPECT_TRUE(left_to_peer(first.init_reboot(theirs, wrong_link)));
  EXPECT_EQ(reply_type(second.init_reboot(theirs, wrong_link)), MessageType::Nak);
  EXPECT_EQ(reply_type(first.init_reboot(theirs, wrong_link, 3)), MessageType::Nak);
  EXPECT_EQ(first.engine.counters().reboots_left_to_owner, 1u);
  EXPECT_EQ(second.engine.counters().reboots_left_to_owner, 1u);
  EXPECT_EQ(first.engine.counters().reboots_left_to_holder + second.engine.counters().reboots_left_to_holder, 0u);
  // A subnet with a primary: the primary's.
  Harness primary{with_primary(kOtherServer)};
  Harness other{with_primary(kServerAddress)};
  EXPECT_TRUE(left_to_peer(other.init_reboot(ours, free_address)));
  EXPECT_EQ(reply_type(primary.init_reboot(ours, free_address)), MessageType::Ack);
}

TEST(Peers, EachServerAllocatesFromItsOwnSegmentOfThePool) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  Harness second{peer_config(kOtherServer)};
  // Pool 198.18.0.100-199: the first peer's half starts at .100, the second's at .150, which is
  // reserved, so .151.
  EXPECT_EQ(first.dora(ours), (Ipv4{198, 18, 0, 100}));
  const Outcome offer = second.discover(theirs);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  EXPECT_EQ(offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 151}));
  EXPECT_EQ(reply_type(second.select(theirs, Ipv4{198, 18, 0, 151}, kOtherServer)), MessageType::Ack);
}

TEST(Peers, AReloadAppliesTheNewListAtOnce) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  EXPECT_EQ(reply_type(first.discover(theirs)), std::nullopt);
  config::Config alone = peer_config(kServerAddress);
  alone.peers.servers.clear();  // the peers section removed: this server answers everyone
  first.engine.reconfigure(alone);
  EXPECT_EQ(reply_type(first.discover(theirs)), MessageType::Offer);
  first.engine.reconfigure(peer_config(kOtherServer));  // now the second of two
  EXPECT_EQ(reply_type(first.discover(ours)), std::nullopt);
}

TEST(Peers, ARenewalOrRebindIsAnsweredWhateverTheBucket) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_config(kServerAddress)};
  auto waited = client_message(MessageType::Discover, theirs);
  waited.secs = 10;
  const Outcome offer = first.send(waited);
  ASSERT_EQ(reply_type(offer), MessageType::Offer);
  const Ipv4 address = offer.reply->message.yiaddr;
  ASSERT_EQ(reply_type(first.select(theirs, address)), MessageType::Ack);
  first.now += 40min;
  EXPECT_EQ(reply_type(first.renew(theirs, address)), MessageType::Ack);
  first.now += 55min;
  EXPECT_EQ(reply_type(first.rebind(theirs, address)), MessageType::Ack);
  (void)ours;
}

namespace class_pools {

// Two pools on the local link, each kept for one client class: BIOS clients (option 93 = 0)
// and UEFI clients (option 93 = 7).
config::Config peer_with_class_pool(Ipv4 own) {
  const std::string yaml = R"(
server: {interfaces: [veth-local], server-id: )" + own.to_string() + R"(}
store: {type: postgresql, url: "postgresql:///landlord"}
peers: {servers: [198.18.0.1, 198.18.0.2]}
classes:
  - {name: bios, match: {client-architecture: 0}}
  - {name: uefi, match: {client-architecture: 7}}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [veth-local]
    pools:
      - {range: 198.18.0.100-198.18.0.139, classes: [bios]}
      - {range: 198.18.0.140-198.18.0.179, classes: [uefi]}
)";
  auto loaded = config::load_string(yaml, "t.yaml");
  if (!loaded) {
    ADD_FAILURE() << config::format_errors(loaded.error());
    return make_config();
  }
  return std::move(*loaded);
}

wire::Message discover_from(std::uint8_t client, std::uint8_t architecture) {
  auto message = client_message(MessageType::Discover, client);
  message.options.set(93, std::vector<std::uint8_t>{0, architecture});
  return message;
}
wire::Message uefi_discover(std::uint8_t client) { return discover_from(client, 7); }

// Clients of a class only one pool serves: exactly one peer (the client's bucket) answers, and
// each peer offers from its own half of that pool, so two peers never offer one address at
// once. The same for the other class's pool.
TEST(Peers, ClassRestrictedPoolsAreSplitBetweenPeersToo) {
  const auto [ours, theirs] = one_client_of_each_peer();
  Harness first{peer_with_class_pool(kServerAddress)};
  Harness second{peer_with_class_pool(kOtherServer)};
  // UEFI clients: one peer each.
  EXPECT_EQ(reply_type(second.send(uefi_discover(ours))), std::nullopt);
  EXPECT_EQ(reply_type(first.send(uefi_discover(theirs))), std::nullopt);
  const Outcome first_offer = first.send(uefi_discover(ours));
  const Outcome second_offer = second.send(uefi_discover(theirs));
  ASSERT_EQ(reply_type(first_offer), MessageType::Offer);
  ASSERT_EQ(reply_type(second_offer), MessageType::Offer);
  // The UEFI pool .140-.179: the first peer's half starts at .140, the second's at .160.
  EXPECT_EQ(first_offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 140}));
  EXPECT_EQ(second_offer.reply->message.yiaddr, (Ipv4{198, 18, 0, 160}));
  // BIOS clients: the other pool .100-.139, halves at .100 and .120.
  const Outcome first_plain = first.send(discover_from(ours, 0));
  const Outcome second_plain = second.send(discover_from(theirs, 0));
  ASSERT_EQ(reply_type(first_plain), MessageType::Offer);
  ASSERT_EQ(reply_type(second_plain), MessageType::Offer);
  EXPECT_EQ(first_plain.reply->message.yiaddr, (Ipv4{198, 18, 0, 100}));
  EXPECT_EQ(second_plain.reply->message.yiaddr, (Ipv4{198, 18, 0, 120}));
}

// Once a peer's half of the class pool is used up it takes from the rest of that pool (the
// store arbitrates then), never from a pool the client's classes may not use.
TEST(Peers, APeerWhoseHalfOfAClassPoolIsUsedUpTakesFromTheRestOfThatPool) {
  Harness first{peer_with_class_pool(kServerAddress)};
  std::vector<Ipv4> offered;
  for (int client = 1; offered.size() < 21 && client < 256; ++client) {
    const auto message = uefi_discover(static_cast<std::uint8_t>(client));
    if (*client_bucket(message) % 2 != 0) continue;  // the second peer's
    const Outcome offer = first.send(message);
    ASSERT_EQ(reply_type(offer), MessageType::Offer);
    offered.push_back(offer.reply->message.yiaddr);
  }
  ASSERT_EQ(offered.size(), 21u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(offered[i], (Ipv4{198, 18, 0, static_cast<std::uint8_t>(140 + i)}));
  EXPECT_EQ(offered[20], (Ipv4{198, 18, 0, 160})) << "the rest of the UEFI pool, not the other pool";
}

}  // namespace class_pools

}  // namespace
}  // namespace landlord::engine::testing
