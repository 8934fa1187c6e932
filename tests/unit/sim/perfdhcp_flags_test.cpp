// perfdhcp's everyday features in the simulator's core: extra options, the parameter request
// list and a requested lease time in every request; MACs from a list or counted from a base;
// the --max-exchanges and --max-drops stop conditions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "landlord/sim/client_macs.hpp"
#include "landlord/sim/fleet.hpp"
#include "landlord/sim/request_options.hpp"
#include "scripted_server.hpp"
#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;

std::vector<std::uint8_t> bytes(std::initializer_list<int> values) {
  std::vector<std::uint8_t> out;
  for (const int v : values) out.push_back(static_cast<std::uint8_t>(v));
  return out;
}

TEST(ExtraOption, ParsesEachType) {
  EXPECT_EQ(parse_extra_option("60:text:PXEClient")->value,
            std::vector<std::uint8_t>({'P', 'X', 'E', 'C', 'l', 'i', 'e', 'n', 't'}));
  EXPECT_EQ(parse_extra_option("60:text:PXEClient")->code, 60);
  EXPECT_EQ(parse_extra_option("93:u16:7")->value, bytes({0, 7}));
  EXPECT_EQ(parse_extra_option("24:u8:64")->value, bytes({64}));
  EXPECT_EQ(parse_extra_option("35:u32:4294967295")->value, bytes({255, 255, 255, 255}));
  EXPECT_EQ(parse_extra_option("77:hex:6c6162")->value, bytes({0x6c, 0x61, 0x62}));
  EXPECT_EQ(parse_extra_option("77:hex:6c:61:62")->value, bytes({0x6c, 0x61, 0x62}));
  EXPECT_EQ(parse_extra_option("118:ipv4:198.18.0.1,198.18.0.2")->value,
            bytes({198, 18, 0, 1, 198, 18, 0, 2}));
}

TEST(ExtraOption, RefusesMistakesWithAReason) {
  const auto error = [](std::string_view text) {
    const auto parsed = parse_extra_option(text);
    EXPECT_FALSE(parsed) << text;
    return parsed ? std::string() : parsed.error();
  };
  EXPECT_NE(error("60:PXEClient").find("CODE:TYPE:VALUE"), std::string::npos);
  EXPECT_NE(error("0:u8:1").find("1-254"), std::string::npos);
  EXPECT_NE(error("255:u8:1").find("1-254"), std::string::npos);
  EXPECT_NE(error("x:u8:1").find("1-254"), std::string::npos);
  EXPECT_NE(error("93:u16:70000").find("u16"), std::string::npos);
  EXPECT_NE(error("93:u8:-1").find("u8"), std::string::npos);
  EXPECT_NE(error("77:hex:6c6").find("hex"), std::string::npos);
  EXPECT_NE(error("3:ipv4:198.18.0").find("IPv4"), std::string::npos);
  EXPECT_NE(error("60:string:x").find("unknown type"), std::string::npos);
  EXPECT_NE(error("60:text:" + std::string(256, 'a')).find("255"), std::string::npos);
  EXPECT_NE(error("51:u32:60").find("--request-lease-time"), std::string::npos);
  EXPECT_NE(error("55:hex:0103").find("--prl"), std::string::npos);
  EXPECT_NE(error("53:u8:1").find("message type"), std::string::npos);
  EXPECT_NE(error("82:hex:01").find("relay"), std::string::npos);
}

TEST(ParameterRequestList, ParsesCodes) {
  EXPECT_EQ(*parse_parameter_request_list("1,3,6,51"), bytes({1, 3, 6, 51}));
  EXPECT_EQ(*parse_parameter_request_list("42"), bytes({42}));
  for (const char* bad : {"", "1,,3", "1,3,", "0", "255", "1,x", "3,3"}) {
    EXPECT_FALSE(parse_parameter_request_list(bad)) << bad;
  }
}

TEST(RequestOptions, GoIntoEveryRequest) {
  RequestOptions options;
  options.extra.push_back(*parse_extra_option("60:text:PXEClient"));
  options.extra.push_back(*parse_extra_option("93:u16:7"));
  options.parameter_request_list = bytes({1, 3, 6});
  options.lease_time_s = 600;
  Client client(test::identity(0x20), Timing{}, 3, &options);
  const test::Server server;
  Output out = client.step(Start{}, test::kEpoch);
  ASSERT_TRUE(out.transmission);
  const auto check = [&](const wire::Message& m, const char* which) {
    EXPECT_EQ(m.options.get_text(60).value_or(""), "PXEClient") << which;
    EXPECT_EQ(m.options.get_u16(93), 7) << which;
    const auto prl = m.options.get(wire::option::kParameterRequestList);
    EXPECT_EQ(std::vector<std::uint8_t>(prl.begin(), prl.end()), bytes({1, 3, 6})) << which;
    EXPECT_EQ(m.options.get_u32(wire::option::kLeaseTime), 600u) << which;
  };
  check(out.transmission->message, "DISCOVER");
  const auto offer = server.offer(client.identity(), client.xid(), Ipv4{198, 18, 0, 9});
  out = client.step(Received{&offer}, test::kEpoch);
  ASSERT_TRUE(out.transmission);
  check(out.transmission->message, "REQUEST");
}

TEST(RequestOptions, DefaultsWithout) {
  Client client(test::identity(0x21), Timing{}, 3);
  const Output out = client.step(Start{}, test::kEpoch);
  EXPECT_FALSE(out.transmission->message.options.has(60));
  EXPECT_FALSE(out.transmission->message.options.has(wire::option::kLeaseTime));
  EXPECT_EQ(out.transmission->message.options.get(wire::option::kParameterRequestList).size(), 7u);
}

TEST(ClientMacs, CountedFromABase) {
  const auto base = *HardwareAddress::parse("00:16:3e:00:00:fe");
  const ClientMacs macs = ClientMacs::counted_from(base);
  EXPECT_EQ(macs.mac_of(0).to_string(), "00:16:3e:00:00:fe");
  EXPECT_EQ(macs.mac_of(3).to_string(), "00:16:3e:00:01:01");
  EXPECT_EQ(macs.index_of(*HardwareAddress::parse("00:16:3e:00:01:01")), 3u);
  EXPECT_EQ(macs.capacity(), (std::size_t{1} << 48) - 0x00163e0000feu);
}

TEST(ClientMacs, FromAListBothWays) {
  const auto list = parse_mac_list("# lab\n02:aa:00:00:00:01\n\n  02:aa:00:00:00:07 # two\r\n");
  ASSERT_TRUE(list) << list.error();
  ASSERT_EQ(list->size(), 2u);
  const ClientMacs macs = ClientMacs::from_list(*list);
  EXPECT_EQ(macs.mac_of(1).to_string(), "02:aa:00:00:00:07");
  EXPECT_EQ(macs.index_of(*HardwareAddress::parse("02:aa:00:00:00:07")), 1u);
  EXPECT_FALSE(macs.index_of(*HardwareAddress::parse("02:aa:00:00:00:02")));
  EXPECT_EQ(macs.capacity(), 2u);
}

TEST(ClientMacs, ListMistakesNameTheirLine) {
  EXPECT_EQ(parse_mac_list("02:aa:00:00:00:01\nnot-a-mac\n").error(),
            "line 2: 'not-a-mac' is not a MAC (aa:bb:cc:dd:ee:ff)");
  EXPECT_EQ(parse_mac_list("02:aa:00:00:00:01\n02:AA:00:00:00:01\n").error(),
            "line 2: 02:aa:00:00:00:01 repeats line 1");
  EXPECT_FALSE(parse_mac_list("# only a comment\n"));
}

TEST(ClientMacs, SeededIsTheDefault) {
  const ClientMacs macs = ClientMacs::seeded(9);
  EXPECT_EQ(macs.mac_of(258), client_mac(9, 258));
  EXPECT_EQ(macs.index_of(client_mac(9, 258)), 258u);
  EXPECT_FALSE(macs.index_of(client_mac(10, 258)));
}

Workload small_workload() {
  Workload workload;
  workload.clients = 50;
  workload.arrival_rate_per_s = 50;
  workload.duration = 300s;
  workload.seed = 4;
  workload.timing = Timing::with_retransmit_base(1s, 2s);
  return workload;
}

TEST(Fleet, ListedMacsGetLeases) {
  Workload workload = small_workload();
  for (int i = 0; i < 50; ++i) {
    workload.macs.push_back(*HardwareAddress::parse(fmt::format("00:16:3e:00:10:{:02x}", i)));
  }
  test::ScriptedServer server({.lease_s = 60});
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  EXPECT_EQ(fleet.stats().leases, 50u);
  EXPECT_EQ(fleet.client(49).identity().hardware.to_string(), "00:16:3e:00:10:31");
  EXPECT_GT(fleet.stats().renewals, 50u * 8);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u);
}

TEST(Fleet, StopsAfterMaxExchanges) {
  Workload workload = small_workload();
  workload.limits.max_exchanges = 120;
  test::ScriptedServer server({.lease_s = 60});
  Fleet fleet(workload, test::kEpoch);
  TimePoint last = test::kEpoch;
  test::run_virtual(fleet, server, test::kEpoch, [&](TimePoint now) { last = now; });
  EXPECT_EQ(fleet.stop_reason(last + 1ms), StopReason::MaxExchanges);
  // Replies already on their way in the same instant may finish a few more.
  EXPECT_GE(fleet.stats().exchanges(), 120u);
  EXPECT_LT(fleet.stats().exchanges(), 130u);
  EXPECT_LT(last, test::kEpoch + 300s);
}

TEST(Fleet, StopsWhenRepliesGoMissing) {
  Workload workload = small_workload();
  workload.drop_replies = 0.3;
  workload.limits.max_drops = 10;
  test::ScriptedServer server({.lease_s = 60});
  Fleet fleet(workload, test::kEpoch);
  TimePoint last = test::kEpoch;
  test::run_virtual(fleet, server, test::kEpoch, [&](TimePoint now) { last = now; });
  EXPECT_EQ(fleet.stop_reason(last + 1ms), StopReason::MaxDrops);
  EXPECT_EQ(fleet.stats().retransmissions + fleet.stats().gave_up, 11u);
}

TEST(Fleet, StopsAtADropPercentage) {
  Workload workload = small_workload();
  workload.drop_replies = 0.3;
  workload.limits.max_drop_fraction = 0.10;
  test::ScriptedServer server({.lease_s = 60});
  Fleet fleet(workload, test::kEpoch);
  TimePoint last = test::kEpoch;
  test::run_virtual(fleet, server, test::kEpoch, [&](TimePoint now) { last = now; });
  const Stats& s = fleet.stats();
  EXPECT_EQ(fleet.stop_reason(last + 1ms), StopReason::MaxDrops);
  EXPECT_GE(s.packets_sent, 100u);
  EXPECT_GT(static_cast<double>(s.retransmissions + s.gave_up), 0.10 * static_cast<double>(s.packets_sent));
  // ...and a clean network never trips it.
  Workload clean = small_workload();
  clean.limits.max_drop_fraction = 0.10;
  test::ScriptedServer calm({.lease_s = 60});
  Fleet full(clean, test::kEpoch);
  test::run_virtual(full, calm, test::kEpoch);
  EXPECT_EQ(full.stop_reason(test::kEpoch + 300s), StopReason::Duration);
}

}  // namespace
}  // namespace landlord::sim
