// Client groups: a share of the clients sends options of its own (--client-group), so one run
// exercises a server's classes: every request of a group's client carries the group's options,
// the groups hold their shares, and the rest send the run's own.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "landlord/sim/client_groups.hpp"
#include "landlord/sim/fleet.hpp"
#include "scripted_server.hpp"
#include "sim_test_support.hpp"

namespace landlord::sim {
namespace {

using namespace std::chrono_literals;

TEST(ClientGroup, ParsesItsFields) {
  const auto group = parse_client_group("share=30%;option=93:u16:7;prl=1,3,66;request_lease_time=10m");
  ASSERT_TRUE(group.has_value()) << group.error();
  EXPECT_DOUBLE_EQ(group->share, 0.3);
  ASSERT_EQ(group->options.extra.size(), 1u);
  EXPECT_EQ(group->options.extra[0].code, 93);
  EXPECT_EQ(group->options.parameter_request_list, (std::vector<std::uint8_t>{1, 3, 66}));
  EXPECT_EQ(group->options.lease_time_s, 600u);
  EXPECT_DOUBLE_EQ(parse_client_group("share=0.5")->share, 0.5);
}

TEST(ClientGroup, RefusesMistakesWithAReason) {
  EXPECT_NE(parse_client_group("option=93:u16:7").error().find("share"), std::string::npos);
  EXPECT_NE(parse_client_group("share=0").error().find("above 0"), std::string::npos);
  EXPECT_NE(parse_client_group("share=120%").error().find("at most"), std::string::npos);
  EXPECT_NE(parse_client_group("share=1;colour=red").error().find("unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(parse_client_group("share=1;option=51:u32:60").error().find("--request-lease-time"),
            std::string::npos);
  EXPECT_NE(parse_client_group("share=1;option=60:text:a;option=60:text:b").error().find("twice"),
            std::string::npos);
  EXPECT_NE(parse_client_group("share=1;prl").error().find("KEY=VALUE"), std::string::npos);
}

TEST(ClientGroup, OptionsAreTheRunsWithTheGroupsOnTop) {
  RequestOptions run;
  run.extra = {*parse_extra_option("60:text:run"), *parse_extra_option("77:text:lab")};
  run.lease_time_s = 3600;
  const auto group = parse_client_group("share=1;option=60:text:PXEClient;prl=1,3");
  const RequestOptions options = merged(run, group->options);
  ASSERT_EQ(options.extra.size(), 2u);
  EXPECT_EQ(std::string(options.extra[0].value.begin(), options.extra[0].value.end()), "PXEClient");
  EXPECT_EQ(options.extra[1].code, 77);
  EXPECT_EQ(options.parameter_request_list, (std::vector<std::uint8_t>{1, 3}));
  EXPECT_EQ(options.lease_time_s, 3600u);
}

TEST(ClientGroup, GroupsHoldTheirShareInEveryStretch) {
  const std::vector<ClientGroup> groups{*parse_client_group("share=30%"),
                                        *parse_client_group("share=50%")};
  for (const ClientIndex first : {0u, 12'345u, 900'000u}) {
    std::array<int, 3> counts{};
    for (ClientIndex i = first; i < first + 1000; ++i) ++counts[group_of(i, groups)];
    EXPECT_NEAR(counts[0], 300, 5) << first;
    EXPECT_NEAR(counts[1], 500, 5) << first;
    EXPECT_NEAR(counts[2], 200, 5) << first;
  }
  EXPECT_EQ(group_of(7, {}), 0u);
}

// Records, per client MAC, the option 93 and 60 of every request, then answers as usual.
class Recording : public test::ScriptedServer {
 public:
  using ScriptedServer::ScriptedServer;
  struct Seen {
    std::set<std::string> option93, option60;
    std::set<std::size_t> prl_sizes;
    std::size_t requests = 0;
  };
  std::map<std::string, Seen> by_client;

  void send(Transmission& transmission) override {
    const wire::Message& m = transmission.message;
    Seen& seen = by_client[m.client_key().raw()];
    ++seen.requests;
    const auto text = [](std::span<const std::uint8_t> bytes) {
      return bytes.empty() ? std::string("-") : std::string(bytes.begin(), bytes.end());
    };
    seen.option93.insert(text(m.options.get(93)));
    seen.option60.insert(text(m.options.get(60)));
    const auto prl = m.options.get(wire::option::kParameterRequestList);
    seen.prl_sizes.insert(prl.size());
    ScriptedServer::send(transmission);
  }
};

TEST(Fleet, EachGroupsClientsSendItsOptionsInEveryRequest) {
  Workload workload;
  workload.clients = 200;
  workload.arrival_rate_per_s = 100;
  workload.duration = 200s;
  workload.seed = 3;
  workload.timing = Timing::with_retransmit_base(1s, 2s);
  workload.request_options.extra = {*parse_extra_option("77:text:lab")};
  workload.client_groups = {*parse_client_group("share=30%;option=93:u16:7"),
                            *parse_client_group("share=50%;option=60:text:PXEClient;prl=1,3,6,66,67")};
  Recording server({.lease_s = 30});
  Fleet fleet(workload, test::kEpoch);
  test::run_virtual(fleet, server, test::kEpoch);
  ASSERT_EQ(server.by_client.size(), 200u);
  std::size_t arch = 0, pxe = 0, plain = 0;
  for (const auto& [client, seen] : server.by_client) {
    // Every request of a client (DISCOVER, REQUEST, renewals) carries the same options.
    ASSERT_EQ(seen.option93.size(), 1u) << client;
    ASSERT_EQ(seen.option60.size(), 1u) << client;
    const bool is_arch = *seen.option93.begin() == std::string("\0\7", 2);
    const bool is_pxe = *seen.option60.begin() == "PXEClient";
    EXPECT_FALSE(is_arch && is_pxe);
    if (is_pxe) EXPECT_EQ(seen.prl_sizes, std::set<std::size_t>{5});
    else EXPECT_EQ(seen.prl_sizes, std::set<std::size_t>{7});
    arch += is_arch;
    pxe += is_pxe;
    plain += !is_arch && !is_pxe;
    EXPECT_GT(seen.requests, 4u);
  }
  EXPECT_NEAR(static_cast<double>(arch), 60, 3);
  EXPECT_NEAR(static_cast<double>(pxe), 100, 3);
  EXPECT_NEAR(static_cast<double>(plain), 40, 3);
  EXPECT_EQ(fleet.stats().leases, 200u);
  EXPECT_EQ(fleet.auditor().violation_count(), 0u);
}

}  // namespace
}  // namespace landlord::sim
