#pragma once
// The links and routes the server answers by, and which links it serves: read from the kernel
// at start and reload, and again when they may have changed — an unknown link index at most
// once per rescan interval (a link that appeared), the routes before a reply that may follow a
// route when they are older than that. Time comes in (Clock::steady()); the tables come from a
// Scanner, the kernel's in the daemon and a fake in tests.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "landlord/server/links.hpp"

namespace landlord::server {

// Where the tables come from: the kernel's by default.
struct LinkScanner {
  std::function<LinkTable()> links = &LinkTable::scan;
  std::function<RouteTable()> routes = &RouteTable::scan;
};

class LinkView {
 public:
  using Steady = std::chrono::steady_clock;
  static constexpr auto kRescanInterval = std::chrono::seconds{1};

  explicit LinkView(LinkScanner scanner = {}) : scanner_(std::move(scanner)) {}

  // Both tables read again, then server.interfaces resolved: the first name that does not
  // exist, or "" when all do.
  std::string refresh(const std::vector<std::string>& interfaces, Steady::time_point now);
  // Routes come and go under a running server (a router's, an operator's): a route added is
  // used, and one removed stops being used, within kRescanInterval.
  void refresh_routes_if_stale(Steady::time_point now);

  // The link of `index`; an unknown one rescans the links (at most once per kRescanInterval).
  // `clock` (a Clock, or anything with steady()) is read only for an unknown index.
  template <typename SteadyClock>
  const Link* find(std::uint32_t index, const SteadyClock& clock) {
    const Link* link = links_.find(index);
    if (link != nullptr || index == 0) return link;
    return find_after_rescan(index, clock.steady());
  }
  std::string_view name(std::uint32_t index) const;  // "?" when unknown

  const LinkTable& links() const { return links_; }
  const RouteTable& routes() const { return routes_; }
  const std::unordered_set<std::uint32_t>& served() const { return served_; }

 private:
  std::string resolve(const std::vector<std::string>& interfaces);
  const Link* find_after_rescan(std::uint32_t index, Steady::time_point now);

  LinkScanner scanner_;
  LinkTable links_;
  RouteTable routes_;
  std::vector<std::string> interfaces_;  // server.interfaces, as last resolved
  std::unordered_set<std::uint32_t> served_;
  Steady::time_point last_link_scan_{};
  Steady::time_point last_route_scan_{};
};

}  // namespace landlord::server
