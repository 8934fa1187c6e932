// Offer-ping's ICMP echo on loopback (the only place a unit test may send to): an address that
// answers, found long before the wait, on the loop. The silent case (an
// address nobody holds) needs a link: the lab test lab_offer_ping has it.
#include "landlord/server/offer_ping.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace landlord::server {
namespace {

using namespace std::chrono_literals;

TEST(OfferPing, AnAddressThatAnswersIsReported) {
  boost::asio::io_context io;
  auto opened = OfferPing::open(io);
  ASSERT_TRUE(opened) << opened.error() << " (the tests run as root: tools/test)";
  OfferPing& ping = **opened;
  std::optional<OfferPing::Answer> first, second;
  const auto stop_when_both = [&] {
    if (first && second) io.stop();
  };
  ping.probe(Ipv4{127, 0, 0, 1}, 2s, [&](OfferPing::Answer answer) {
    first = answer;
    stop_when_both();
  });
  ping.probe(Ipv4{127, 0, 0, 2}, 2s, [&](OfferPing::Answer answer) {
    second = answer;
    stop_when_both();
  });
  EXPECT_EQ(ping.in_flight(), 2u);  // probe() returned at once: the answers come on the loop
  EXPECT_FALSE(first);
  const auto started = std::chrono::steady_clock::now();
  io.run_for(3s);
  EXPECT_EQ(first, OfferPing::Answer::Answered);
  EXPECT_EQ(second, OfferPing::Answer::Answered);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);  // answered long before the 2 s wait
  EXPECT_EQ(ping.in_flight(), 0u);
}

}  // namespace
}  // namespace landlord::server
