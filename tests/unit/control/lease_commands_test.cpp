// lease4-* and leases-reclaim: every change decided by the engine, committed, and then shown.
#include <gtest/gtest.h>

#include "fake_daemon.hpp"
#include "landlord/wire/options.hpp"

namespace landlord::control {
namespace {

using testing::FakeDaemon;
using Json = nlohmann::json;

std::string add(const std::string& address, const std::string& mac, const std::string& extra = "") {
  return R"({"command": "lease4-add", "arguments": {"ip-address": ")" + address + R"(", "hw-address": ")" +
         mac + "\"" + extra + "}}";
}

// A RENEWING client (unicast REQUEST with ciaddr) for the engine.
engine::Outcome renew(FakeDaemon& daemon, Ipv4 address, std::uint8_t last_byte) {
  wire::Message message;
  message.xid = 7;
  message.ciaddr = address;
  message.chaddr = {0x02, 0, 0, 0, 0, last_byte};
  message.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(wire::MessageType::Request));
  engine::Ingress ingress;
  ingress.interface_address = Ipv4(198, 18, 0, 1);
  ingress.source_address = address;
  return daemon.engine().handle(message, ingress, daemon.now_);
}

TEST(LeaseCommands, AddIsDurableThenVisibleAndHonouredOnRenewal) {
  FakeDaemon daemon;
  const auto added = daemon.ask(add("198.18.0.150", "02:00:00:00:00:01", R"(, "hostname": "probe")"));
  ASSERT_EQ(added["result"], kSuccess) << added;
  EXPECT_EQ(added["text"], "Lease for address 198.18.0.150, subnet-id 1 added.");
  ASSERT_EQ(daemon.durable.size(), 1u);
  EXPECT_EQ(daemon.durable[0].state, lease::LeaseState::Bound);
  EXPECT_EQ(daemon.durable[0].fencing_token, 1u);
  EXPECT_EQ(daemon.events.at(0).kind, engine::EventKind::Admin);

  const auto got = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": "198.18.0.150"}})");
  ASSERT_EQ(got["result"], kSuccess);
  EXPECT_EQ(got["arguments"]["hw-address"], "02:00:00:00:00:01");
  EXPECT_EQ(got["arguments"]["hostname"], "probe");
  EXPECT_EQ(got["arguments"]["valid-lft"], 3600);
  EXPECT_EQ(got["arguments"]["phase"], "bound");
  EXPECT_EQ(got["arguments"]["classes"], Json::array());  // an operator's lease matched no class
  const auto by_mac = daemon.ask(
      R"({"command": "lease4-get", "arguments": {"identifier-type": "hw-address", "identifier": "02:00:00:00:00:01", "subnet-id": 1}})");
  EXPECT_EQ(by_mac["arguments"]["ip-address"], "198.18.0.150");

  const auto outcome = renew(daemon, Ipv4(198, 18, 0, 150), 1);
  ASSERT_TRUE(outcome.reply.has_value());
  EXPECT_EQ(outcome.reply->message.type(), wire::MessageType::Ack);
}

// The client classes a DHCP grant matched are part of the lease (lease::Lease::classes).
const char* kClasses = R"(store: {type: memory}
classes:
  - {name: lab, match: {hardware-address: "02:00:00"}}
  - {name: phones, match: {vendor-class: Cisco}}
  - {name: port-3, match: {hardware-address: "02:00:00:00:00:03"}}
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.199]
)";

// DISCOVER and REQUEST from 02:00:00:00:00:03 through the engine: the address it was granted.
Ipv4 grant_by_dhcp(FakeDaemon& daemon) {
  wire::Message discover;
  discover.xid = 9;
  discover.chaddr = {0x02, 0, 0, 0, 0, 3};
  discover.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(wire::MessageType::Discover));
  engine::Ingress ingress;
  ingress.interface_address = Ipv4(198, 18, 0, 1);
  ingress.to_broadcast = true;
  const auto offer = daemon.engine().handle(discover, ingress, daemon.now_);
  EXPECT_TRUE(offer.reply.has_value());
  if (!offer.reply) return {};
  wire::Message request = discover;
  request.options.set_u8(wire::option::kMessageType, static_cast<std::uint8_t>(wire::MessageType::Request));
  request.options.set_ipv4(wire::option::kServerId, Ipv4(198, 18, 0, 1));
  request.options.set_ipv4(wire::option::kRequestedAddress, offer.reply->message.yiaddr);
  EXPECT_EQ(daemon.engine().handle(request, ingress, daemon.now_).mutations.size(), 1u);
  return offer.reply->message.yiaddr;
}

TEST(LeaseCommands, GetShowsTheClassesTheLeaseWasGrantedUnder) {
  FakeDaemon daemon(kClasses);
  const Ipv4 granted = grant_by_dhcp(daemon);
  const auto got = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": ")" + granted.to_string() + "\"}}");
  ASSERT_EQ(got["result"], kSuccess) << got;
  EXPECT_EQ(got["arguments"]["classes"], (Json{"lab", "port-3"}));
}

// lease4-update changes what the operator gives (hostname, lifetime), not the classes the client
// was granted under: they stay in memory and in the durable record.
TEST(LeaseCommands, UpdateKeepsTheStoredClasses) {
  FakeDaemon daemon(kClasses);
  const Ipv4 granted = grant_by_dhcp(daemon);
  const auto updated = daemon.ask(R"({"command": "lease4-update", "arguments": {"ip-address": ")" +
                                  granted.to_string() +
                                  R"(", "hw-address": "02:00:00:00:00:03", "hostname": "renamed", "valid-lft": 600}})");
  ASSERT_EQ(updated["result"], kSuccess) << updated;
  EXPECT_EQ(updated["arguments"]["classes"], (Json{"lab", "port-3"}));
  ASSERT_FALSE(daemon.durable.empty());
  EXPECT_EQ(daemon.durable.back().classes, "lab,port-3");
  const auto got = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": ")" + granted.to_string() + "\"}}");
  EXPECT_EQ(got["arguments"]["hostname"], "renamed");
  EXPECT_EQ(got["arguments"]["valid-lft"], 600);
  EXPECT_EQ(got["arguments"]["classes"], (Json{"lab", "port-3"}));
}

// Kea's fqdn-fwd / fqdn-rev: the hostname's records are in DNS already; the lease takes them
// over (dns-state done, removed when it ends). An update that names none keeps them.
TEST(LeaseCommands, AddTakesOverTheNameInDnsAndUpdateKeepsIt) {
  FakeDaemon daemon;
  const auto ask = [&](const std::string& command, const std::string& arguments) {
    return daemon.ask(R"({"command": ")" + command + R"(", "arguments": {"ip-address": "198.18.0.150", )" +
                      arguments + "}}");
  };
  EXPECT_EQ(ask("lease4-add", R"("hw-address": "02:00:00:00:00:01", "fqdn-fwd": true)")["result"], kError)
      << "a name's records need the name";
  EXPECT_EQ(ask("lease4-add", R"("hw-address": "02:00:00:00:00:01", "hostname": "a b", "fqdn-fwd": true)")["result"],
            kError);
  const auto added = ask("lease4-add", R"("hw-address": "02:00:00:00:00:01", "hostname": "printer.lab.test.",
                                          "fqdn-fwd": true, "fqdn-rev": false)");
  ASSERT_EQ(added["result"], kSuccess) << added;
  auto got = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": "198.18.0.150"}})")["arguments"];
  EXPECT_EQ(got["fqdn"], "printer.lab.test");
  EXPECT_EQ(got["fqdn-fwd"], true);
  EXPECT_EQ(got["fqdn-rev"], false);
  EXPECT_EQ(got["dns-state"], "done");
  ASSERT_EQ(ask("lease4-update", R"("hw-address": "02:00:00:00:00:01", "valid-lft": 600)")["result"], kSuccess);
  got = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": "198.18.0.150"}})")["arguments"];
  EXPECT_EQ(got["fqdn"], "printer.lab.test");
  EXPECT_EQ(got["dns-state"], "done");
  ASSERT_EQ(ask("lease4-update", R"("hw-address": "02:00:00:00:00:01", "fqdn-fwd": false, "fqdn-rev": false)")["result"],
            kSuccess);
  got = daemon.ask(R"({"command": "lease4-get", "arguments": {"ip-address": "198.18.0.150"}})")["arguments"];
  EXPECT_EQ(got["fqdn"], "");
  EXPECT_EQ(got["dns-state"], "none");
}

TEST(LeaseCommands, ChangesThatBreakAnInvariantAreRefused) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01"))["result"], kSuccess);
  const auto taken = daemon.ask(add("198.18.0.150", "02:00:00:00:00:02"));
  EXPECT_EQ(taken["result"], kError);
  EXPECT_EQ(taken["text"], "198.18.0.150 is held by another client (bound)");
  EXPECT_EQ(daemon.ask(add("198.18.0.50", "02:00:00:00:00:02"))["text"],
            "198.18.0.50 is outside every pool of subnet 1 (198.18.0.0/24)");
  EXPECT_EQ(daemon.ask(add("198.18.9.1", "02:00:00:00:00:02"))["text"], "198.18.9.1 is in no configured subnet");
  EXPECT_EQ(daemon.ask(add("198.18.0.10", "02:00:00:00:00:02"))["text"], "198.18.0.10 is reserved for another client");
  EXPECT_EQ(daemon.ask(add("198.18.0.151", "02:00:00:00:00:01"))["text"],
            "the client already holds 198.18.0.150 in subnet 1 (198.18.0.0/24)");
  EXPECT_EQ(daemon.ask(add("198.18.0.160", "02:00:00:00:00:03", R"(, "subnet-id": 2)"))["text"],
            "198.18.0.160 is in subnet 1 (198.18.0.0/24), not subnet 2");
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-add", "arguments": {"ip-address": "198.18.0.161"}})")["text"],
            "a lease needs hw-address or client-id");
  daemon.store_up = false;
  const auto down = daemon.ask(add("198.18.0.170", "02:00:00:00:00:04"));
  EXPECT_EQ(down["text"], "the lease store is not accepting writes; nothing was changed");
  EXPECT_FALSE(daemon.engine().find(Ipv4(198, 18, 0, 170)).has_value());
  EXPECT_EQ(daemon.durable.size(), 1u);
}

TEST(LeaseCommands, ReservedAddressGoesToItsOwnClient) {
  FakeDaemon daemon;
  EXPECT_EQ(daemon.ask(add("198.18.0.10", "02:00:00:00:00:10"))["result"], kSuccess);
}

TEST(LeaseCommands, UpdateNeedsALeaseUnlessForceCreate) {
  FakeDaemon daemon;
  const std::string update =
      R"({"command": "lease4-update", "arguments": {"ip-address": "198.18.0.120", "hw-address": "02:00:00:00:00:05", "valid-lft": 600)";
  EXPECT_EQ(daemon.ask(update + "}}")["result"], kEmpty);
  const auto created = daemon.ask(update + R"(, "force-create": true}})");
  ASSERT_EQ(created["result"], kSuccess) << created;
  const auto updated = daemon.ask(update + "}}");
  ASSERT_EQ(updated["result"], kSuccess) << updated;
  EXPECT_EQ(updated["arguments"]["valid-lft"], 600);
  EXPECT_EQ(updated["arguments"]["renew-time"], 300);
  EXPECT_EQ(daemon.durable.back().fencing_token, 1u);  // same holder: the token stays
}

TEST(LeaseCommands, ARevokedLeaseIsNakedAtItsNextRenewal) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01"))["result"], kSuccess);
  const auto deleted = daemon.ask(R"({"command": "lease4-del", "arguments": {"ip-address": "198.18.0.150"}})");
  ASSERT_EQ(deleted["result"], kSuccess) << deleted;
  EXPECT_EQ(daemon.durable.back().state, lease::LeaseState::Released);
  const auto outcome = renew(daemon, Ipv4(198, 18, 0, 150), 1);
  ASSERT_TRUE(outcome.reply.has_value());
  EXPECT_EQ(outcome.reply->message.type(), wire::MessageType::Nak);
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-del", "arguments": {"ip-address": "198.18.0.150"}})")["result"], kEmpty);
  // Another client may now take it, with a new fencing token.
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:02"))["result"], kSuccess);
  EXPECT_EQ(daemon.durable.back().fencing_token, 2u);
}

TEST(LeaseCommands, GetAllFiltersBySubnetAndStateAndPagesInAddressOrder) {
  FakeDaemon daemon;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(daemon.ask(add("198.18.0." + std::to_string(140 - i), "02:00:00:00:01:0" + std::to_string(i)))["result"], kSuccess);
  }
  ASSERT_EQ(daemon.ask(add("198.18.2.10", "02:00:00:00:02:01"))["result"], kSuccess);
  ASSERT_EQ(daemon.ask(R"({"command": "lease4-del", "arguments": {"ip-address": "198.18.0.138"}})")["result"], kSuccess);

  const auto all = daemon.ask(R"({"command": "lease4-get-all"})");
  EXPECT_EQ(all["text"], "6 IPv4 lease(s) found.");
  const auto subnet2 = daemon.ask(R"({"command": "lease4-get-all", "arguments": {"subnets": [2]}})");
  EXPECT_EQ(subnet2["arguments"]["leases"].size(), 1u);
  const auto released = daemon.ask(R"({"command": "lease4-get-all", "arguments": {"state": "released"}})");
  ASSERT_EQ(released["arguments"]["leases"].size(), 1u);
  EXPECT_EQ(released["arguments"]["leases"][0]["ip-address"], "198.18.0.138");
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-get-all", "arguments": {"subnets": [7]}})")["result"], kEmpty);
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-get-all", "arguments": {"state": "happy"}})")["result"], kError);

  std::vector<std::string> paged;
  std::string from = "start";
  for (int page = 0; page < 10; ++page) {
    const auto answer = daemon.ask(R"({"command": "lease4-get-page", "arguments": {"from": ")" + from + R"(", "limit": 4}})");
    if (answer["result"] == kEmpty) break;
    for (const auto& lease : answer["arguments"]["leases"]) paged.push_back(lease["ip-address"]);
    from = paged.back();
  }
  EXPECT_EQ(paged, (std::vector<std::string>{"198.18.0.136", "198.18.0.137", "198.18.0.138", "198.18.0.139",
                                             "198.18.0.140", "198.18.2.10"}));
}

TEST(LeaseCommands, WipeNeedsConfirmationThenRevokesTheSubnet) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01"))["result"], kSuccess);
  ASSERT_EQ(daemon.ask(add("198.18.0.151", "02:00:00:00:00:02"))["result"], kSuccess);
  ASSERT_EQ(daemon.ask(add("198.18.2.11", "02:00:00:00:00:03"))["result"], kSuccess);
  const auto unconfirmed = daemon.ask(R"({"command": "lease4-wipe", "arguments": {"subnet-id": 1}})");
  EXPECT_EQ(unconfirmed["result"], kError);
  EXPECT_EQ(unconfirmed["text"], "lease4-wipe revokes every lease of subnet 1: repeat with \"confirm\": true");
  const auto wiped = daemon.ask(R"({"command": "lease4-wipe", "arguments": {"subnet-id": 1, "confirm": true}})");
  EXPECT_EQ(wiped["arguments"]["deleted"], 2);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->state, lease::LeaseState::Released);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 2, 11))->state, lease::LeaseState::Bound);
}

TEST(LeaseCommands, ReclaimExpiresLeasesPastTheirEnd) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01", R"(, "valid-lft": 60)"))["result"], kSuccess);
  EXPECT_EQ(daemon.ask(R"({"command": "leases-reclaim", "arguments": {"remove": true}})")["arguments"]["reclaimed"], 0);
  daemon.now_ += std::chrono::seconds{61};
  const auto reclaimed = daemon.ask(R"({"command": "leases-reclaim", "arguments": {"remove": false}})");
  EXPECT_EQ(reclaimed["arguments"]["reclaimed"], 1);
  EXPECT_EQ(daemon.durable.back().state, lease::LeaseState::Expired);
  EXPECT_EQ(daemon.events.back().kind, engine::EventKind::Expire);
  EXPECT_EQ(daemon.ask(R"({"command": "leases-reclaim", "arguments": {"remove": 1}})")["text"],
            "'remove' must be true or false");
}

// The expiry timer's rule (Daemon::may_end_leases): a server whose clock disagrees with a shared
// store's ends no lease, and the command does not either. Before, it reclaimed regardless.
TEST(LeaseCommands, ReclaimIsRefusedWhileTheClockDisagreesWithTheSharedStore) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01", R"(, "valid-lft": 60)"))["result"], kSuccess);
  const std::size_t commits = daemon.commit_sizes.size();
  daemon.now_ += std::chrono::seconds{61};
  daemon.clock_disagrees = "this server's clock is 30000 ms behind the shared store's, more than store.max-clock-skew 1s";
  const auto refused = daemon.ask(R"({"command": "leases-reclaim", "arguments": {"remove": false}})");
  EXPECT_EQ(refused["result"], kError);
  EXPECT_EQ(refused["text"], daemon.clock_disagrees + "; nothing was reclaimed");
  EXPECT_EQ(refused["arguments"]["reclaimed"], 0);
  EXPECT_EQ(daemon.commit_sizes.size(), commits) << "nothing was committed";
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->state, lease::LeaseState::Bound);
  daemon.clock_disagrees.clear();  // the clocks agree again
  EXPECT_EQ(daemon.ask(R"({"command": "leases-reclaim"})")["arguments"]["reclaimed"], 1);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->state, lease::LeaseState::Expired);
}


const char* kBehind = "this server's clock is 30000 ms behind the shared store's, more than store.max-clock-skew 1s";

// Revoking ends a holder's lease as the expiry timer does, so it keeps the same rule
// (Daemon::may_end_leases). Before, lease4-del revoked whatever the clock.
TEST(LeaseCommands, DelIsRefusedWhileTheClockDisagreesWithTheSharedStore) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01"))["result"], kSuccess);
  const std::size_t commits = daemon.commit_sizes.size();
  daemon.clock_disagrees = kBehind;
  const auto by_address = daemon.ask(R"({"command": "lease4-del", "arguments": {"ip-address": "198.18.0.150"}})");
  EXPECT_EQ(by_address["result"], kError);
  EXPECT_EQ(by_address["text"], std::string{kBehind} + "; nothing was changed");
  const auto by_client = daemon.ask(
      R"({"command": "lease4-del", "arguments": {"identifier-type": "hw-address", "identifier": "02:00:00:00:00:01", "subnet-id": 1}})");
  EXPECT_EQ(by_client["text"], std::string{kBehind} + "; nothing was changed");
  EXPECT_EQ(daemon.commit_sizes.size(), commits) << "nothing was committed";
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->state, lease::LeaseState::Bound);
  daemon.clock_disagrees.clear();
  EXPECT_EQ(daemon.ask(R"({"command": "lease4-del", "arguments": {"ip-address": "198.18.0.150"}})")["result"], kSuccess);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->state, lease::LeaseState::Released);
}

// lease4-wipe likewise, up front (a wipe stopped part of the way: table_scan_test.cpp).
TEST(LeaseCommands, WipeIsRefusedWhileTheClockDisagreesWithTheSharedStore) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01"))["result"], kSuccess);
  ASSERT_EQ(daemon.ask(add("198.18.0.151", "02:00:00:00:00:02"))["result"], kSuccess);
  const std::size_t commits = daemon.commit_sizes.size();
  daemon.clock_disagrees = kBehind;
  const auto refused = daemon.ask(R"({"command": "lease4-wipe", "arguments": {"subnet-id": 1, "confirm": true}})");
  EXPECT_EQ(refused["result"], kError);
  EXPECT_EQ(refused["text"], std::string{kBehind} + "; nothing was revoked");
  EXPECT_EQ(refused["arguments"]["deleted"], 0);
  EXPECT_EQ(daemon.commit_sizes.size(), commits) << "nothing was committed";
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->state, lease::LeaseState::Bound);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 151))->state, lease::LeaseState::Bound);
}

// lease4-add and lease4-update write a lease end by this server's clock, which the other servers
// on the store would not read as the same moment while the clocks disagree (or before they have
// been compared): refused up front with the clock's reason, as DHCP goes unanswered meanwhile.
// Before, both went ahead whatever the clock.
TEST(LeaseCommands, AddAndUpdateAreRefusedWhileTheClockDisagreesWithTheSharedStore) {
  FakeDaemon daemon;
  ASSERT_EQ(daemon.ask(add("198.18.0.150", "02:00:00:00:00:01", R"(, "valid-lft": 60)"))["result"], kSuccess);
  const TimePoint ends = daemon.engine().find(Ipv4(198, 18, 0, 150))->expires_at();
  const std::size_t commits = daemon.commit_sizes.size();
  daemon.now_ += std::chrono::seconds{30};
  daemon.clock_disagrees = kBehind;
  const auto added = daemon.ask(add("198.18.0.151", "02:00:00:00:00:02"));
  EXPECT_EQ(added["result"], kError);
  EXPECT_EQ(added["text"], std::string{kBehind} + "; nothing was changed");
  const char* update =
      R"({"command": "lease4-update", "arguments": {"ip-address": "198.18.0.150", "hw-address": "02:00:00:00:00:01", "valid-lft": 600}})";
  const auto updated = daemon.ask(update);
  EXPECT_EQ(updated["result"], kError);
  EXPECT_EQ(updated["text"], std::string{kBehind} + "; nothing was changed");
  const auto forced = daemon.ask(
      R"({"command": "lease4-update", "arguments": {"ip-address": "198.18.0.152", "hw-address": "02:00:00:00:00:03", "force-create": true}})");
  EXPECT_EQ(forced["text"], std::string{kBehind} + "; nothing was changed");
  EXPECT_EQ(daemon.commit_sizes.size(), commits) << "nothing was committed";
  EXPECT_FALSE(daemon.engine().find(Ipv4(198, 18, 0, 151)));
  EXPECT_FALSE(daemon.engine().find(Ipv4(198, 18, 0, 152)));
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->expires_at(), ends) << "the lease end was not moved";
  daemon.clock_disagrees.clear();  // the clocks agree again
  EXPECT_EQ(daemon.ask(add("198.18.0.151", "02:00:00:00:00:02"))["result"], kSuccess);
  EXPECT_EQ(daemon.ask(update)["result"], kSuccess);
  EXPECT_EQ(daemon.engine().find(Ipv4(198, 18, 0, 150))->expires_at(), daemon.now_ + std::chrono::seconds{600});
}

}  // namespace
}  // namespace landlord::control
