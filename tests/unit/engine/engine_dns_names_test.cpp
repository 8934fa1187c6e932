// DNS names in the engine (RFC 4702): with `ddns:` on, a grant's record carries the name the
// server will put in DNS (from option 81, else option 12, else the reservation), which sides it
// updates and state pending; the OFFER and ACK carry option 81 with the server's decision (or
// the host name back, for option 12). Off, or off for the subnet, nothing changes.
#include <gtest/gtest.h>

#include "engine_yaml.hpp"
#include "landlord/ddns/fqdn.hpp"

namespace landlord::engine::testing {
namespace {

constexpr std::string_view kDdns = R"(
server: {interfaces: [veth-local]}
ddns: {server: 198.18.0.1, forward-zone: lab.test, reverse-zone: 18.198.in-addr.arpa}
subnets:
  - subnet: 198.18.0.0/24
    interfaces: [veth-local]
    pools: [198.18.0.100-198.18.0.150]
    reservations:
      - {mac: "02:00:00:00:00:09", address: 198.18.0.9, hostname: camera}
)";

struct Option {
  std::uint8_t code;
  std::vector<std::uint8_t> value;
};

std::vector<std::uint8_t> text_bytes(std::string_view text) { return {text.begin(), text.end()}; }

// A DISCOVER then a REQUEST, each carrying `options`: the ACK.
Outcome dora_with(Harness& harness, std::uint8_t client, const std::vector<Option>& options) {
  auto discover = client_message(MessageType::Discover, client);
  for (const auto& option : options) discover.options.set(option.code, option.value);
  const Outcome offer = harness.send(discover);
  EXPECT_EQ(reply_type(offer), MessageType::Offer);
  auto request = client_message(MessageType::Request, client);
  request.options.set_ipv4(option::kServerId, kServerAddress);
  request.options.set_ipv4(option::kRequestedAddress, offer.reply->message.yiaddr);
  for (const auto& option : options) request.options.set(option.code, option.value);
  return harness.send(request);
}

const lease::Lease& record_of(const Outcome& outcome) {
  EXPECT_EQ(outcome.mutations.size(), 1u);
  return outcome.mutations.front();
}

TEST(DnsNames, AHostnameBecomesTheQualifiedNameAndComesBack) {
  Harness harness{load_yaml(kDdns)};
  const Outcome ack = dora_with(harness, 1, {{option::kHostname, text_bytes("Alpha")}});
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  const lease::Lease& lease = record_of(ack);
  EXPECT_EQ(lease.fqdn, "alpha.lab.test");
  EXPECT_EQ(lease.dns_sides, (lease::DnsSides{true, true}));
  EXPECT_EQ(lease.dns_state, lease::DnsState::Pending);
  EXPECT_EQ(ack.reply->message.options.get_text(option::kHostname), "alpha");
  EXPECT_FALSE(ack.reply->message.options.has(ddns::kOptionClientFqdn));
}

TEST(DnsNames, OptionEightyOneWithSAndEGetsTheServersDecision) {
  Harness harness{load_yaml(kDdns)};
  ddns::ClientFqdn fqdn;
  fqdn.flags = ddns::ClientFqdn::kFlagS | ddns::ClientFqdn::kFlagE;
  fqdn.labels = {"beta"};  // partial: qualified with the forward zone
  const Outcome ack = dora_with(harness, 2, {{ddns::kOptionClientFqdn, ddns::encode_client_fqdn(fqdn)}});
  ASSERT_EQ(reply_type(ack), MessageType::Ack);
  EXPECT_EQ(record_of(ack).fqdn, "beta.lab.test");
  EXPECT_EQ(record_of(ack).dns_sides, (lease::DnsSides{true, true}));
  const auto reply = ddns::parse_client_fqdn(ack.reply->message.options.get(ddns::kOptionClientFqdn));
  ASSERT_TRUE(reply);
  EXPECT_TRUE(reply->s()) << "the server does the A update";
  EXPECT_FALSE(reply->n());
  EXPECT_EQ(reply->labels, (std::vector<std::string>{"beta", "lab", "test"}));
}

TEST(DnsNames, AClientThatDoesItsOwnAGetsOnlyThePtr) {
  Harness harness{load_yaml(kDdns)};
  ddns::ClientFqdn fqdn;
  fqdn.flags = ddns::ClientFqdn::kFlagE;  // S=0: the client updates its A itself
  fqdn.labels = {"gamma"};
  const Outcome ack = dora_with(harness, 3, {{ddns::kOptionClientFqdn, ddns::encode_client_fqdn(fqdn)}});
  EXPECT_EQ(record_of(ack).dns_sides, (lease::DnsSides{false, true}));
  const auto reply = ddns::parse_client_fqdn(ack.reply->message.options.get(ddns::kOptionClientFqdn));
  ASSERT_TRUE(reply);
  EXPECT_FALSE(reply->s());
}

TEST(DnsNames, AReservationsHostnameNamesAClientThatSendsNone) {
  Harness harness{load_yaml(kDdns)};
  const Outcome ack = dora_with(harness, 9, {});
  ASSERT_EQ(ack.reply->message.yiaddr, (Ipv4{198, 18, 0, 9}));
  EXPECT_EQ(record_of(ack).fqdn, "camera.lab.test");
}

TEST(DnsNames, ARenewalWithoutANameKeepsTheLeasesName) {
  Harness harness{load_yaml(kDdns)};
  const Outcome ack = dora_with(harness, 4, {{option::kHostname, text_bytes("delta")}});
  const Ipv4 address = ack.reply->message.yiaddr;
  const Outcome renewal = harness.renew(4, address);
  ASSERT_EQ(reply_type(renewal), MessageType::Ack);
  EXPECT_EQ(record_of(renewal).fqdn, "delta.lab.test");
  EXPECT_EQ(record_of(renewal).dns_state, lease::DnsState::Pending) << "the add is not settled yet";
}

// The updater's verdict goes into the record (same token); a renewal of a settled name sends
// nothing again, a failed one is tried again.
TEST(DnsNames, TheSettledStateIsWrittenAndARenewalKeepsIt) {
  Harness harness{load_yaml(kDdns)};
  const Outcome ack = dora_with(harness, 4, {{option::kHostname, text_bytes("delta")}});
  const Ipv4 address = ack.reply->message.yiaddr;
  const Outcome done = harness.engine.dns_settled(address, "delta.lab.test", true, lease::DnsState::Done);
  ASSERT_EQ(done.mutations.size(), 1u);
  EXPECT_EQ(done.event.kind, EventKind::Dns);
  EXPECT_EQ(done.mutations[0].dns_state, lease::DnsState::Done);
  EXPECT_EQ(done.mutations[0].fencing_token, record_of(ack).fencing_token);
  EXPECT_EQ(done.mutations[0].state, lease::LeaseState::Bound);
  EXPECT_EQ(harness.engine.find(address)->dns_state, lease::DnsState::Done);
  EXPECT_TRUE(harness.engine.dns_settled(address, "delta.lab.test", true, lease::DnsState::Done).mutations.empty())
      << "settled once";

  EXPECT_EQ(record_of(harness.renew(4, address)).dns_state, lease::DnsState::Done);
  // A renewal under another name is new work.
  auto renewal = client_message(MessageType::Request, 4);
  renewal.ciaddr = address;
  renewal.options.set(option::kHostname, text_bytes("epsilon"));
  const Outcome renamed = harness.send(renewal, local_unicast(address));
  ASSERT_EQ(reply_type(renamed), MessageType::Ack);
  EXPECT_EQ(record_of(renamed).fqdn, "epsilon.lab.test");
  EXPECT_EQ(record_of(renamed).dns_state, lease::DnsState::Pending);
  EXPECT_TRUE(harness.engine.dns_settled(address, "delta.lab.test", true, lease::DnsState::Done).mutations.empty())
      << "the old name's late answer does not settle the new name";
  ASSERT_EQ(harness.engine.dns_settled(address, "epsilon.lab.test", true, lease::DnsState::Failed).mutations.size(), 1u);
  EXPECT_EQ(record_of(harness.renew(4, address)).dns_state, lease::DnsState::Pending) << "failed: tried again";
}

// A lease that ends takes its name out: the record keeps the name, pending, until the removal
// settles; an add's late answer does not settle a removal.
TEST(DnsNames, AnEndedLeasesNameWaitsForItsRemoval) {
  Harness harness{load_yaml(kDdns)};
  const Outcome ack = dora_with(harness, 7, {{option::kHostname, text_bytes("zeta")}});
  const Ipv4 address = ack.reply->message.yiaddr;
  ASSERT_EQ(harness.engine.dns_settled(address, "zeta.lab.test", true, lease::DnsState::Done).mutations.size(), 1u);
  const Outcome released = harness.release(7, address);
  ASSERT_EQ(released.mutations.size(), 1u);
  EXPECT_EQ(released.mutations[0].fqdn, "zeta.lab.test");
  EXPECT_EQ(released.mutations[0].dns_state, lease::DnsState::Pending);
  EXPECT_TRUE(harness.engine.dns_settled(address, "zeta.lab.test", true, lease::DnsState::Done).mutations.empty());
  const Outcome removed = harness.engine.dns_settled(address, "zeta.lab.test", false, lease::DnsState::Done);
  ASSERT_EQ(removed.mutations.size(), 1u);
  EXPECT_EQ(removed.mutations[0].state, lease::LeaseState::Released);
  EXPECT_EQ(removed.mutations[0].dns_state, lease::DnsState::Done);

  // Expiry: the same.
  const Outcome second = dora_with(harness, 8, {{option::kHostname, text_bytes("eta")}});
  const Ipv4 other = second.reply->message.yiaddr;
  ASSERT_EQ(harness.engine.dns_settled(other, "eta.lab.test", true, lease::DnsState::Done).mutations.size(), 1u);
  bool expired = false;
  for (const lease::Lease& record : harness.advance(std::chrono::hours{48})) {
    if (record.address != other) continue;
    expired = true;
    EXPECT_EQ(record.state, lease::LeaseState::Expired);
    EXPECT_EQ(record.dns_state, lease::DnsState::Pending);
  }
  EXPECT_TRUE(expired);
}

TEST(DnsNames, AnUnusableNameIsNotKept) {
  Harness harness{load_yaml(kDdns)};
  const Outcome ack = dora_with(harness, 5, {{option::kHostname, text_bytes("$$$")}});
  ASSERT_EQ(reply_type(ack), MessageType::Ack) << "the lease is granted all the same";
  EXPECT_TRUE(record_of(ack).fqdn.empty());
  EXPECT_EQ(record_of(ack).dns_state, lease::DnsState::None);
}

TEST(DnsNames, OffOrOffForTheSubnetNothingChanges) {
  std::string off{kDdns};
  off.replace(off.find("ddns: {"), off.find('\n', off.find("ddns: {")) - off.find("ddns: {") + 1, "");
  for (const std::string& yaml : {off, std::string{kDdns} + "    ddns: {enabled: false}\n"}) {
    Harness harness{load_yaml(yaml)};
    ddns::ClientFqdn fqdn;
    fqdn.flags = ddns::ClientFqdn::kFlagS | ddns::ClientFqdn::kFlagE;
    fqdn.labels = {"beta"};
    const Outcome ack = dora_with(harness, 6, {{ddns::kOptionClientFqdn, ddns::encode_client_fqdn(fqdn)},
                                               {option::kHostname, text_bytes("beta")}});
    ASSERT_EQ(reply_type(ack), MessageType::Ack) << yaml;
    EXPECT_TRUE(record_of(ack).fqdn.empty());
    EXPECT_FALSE(ack.reply->message.options.has(ddns::kOptionClientFqdn));
    EXPECT_EQ(record_of(ack).hostname, "beta") << "option 12 is kept as ever";
  }
}

}  // namespace
}  // namespace landlord::engine::testing
