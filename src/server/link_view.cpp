#include "landlord/server/link_view.hpp"

namespace landlord::server {

std::string LinkView::refresh(const std::vector<std::string>& interfaces, Steady::time_point now) {
  links_ = scanner_.links();
  routes_ = scanner_.routes();
  last_link_scan_ = last_route_scan_ = now;
  return resolve(interfaces);
}

void LinkView::refresh_routes_if_stale(Steady::time_point now) {
  if (now - last_route_scan_ < kRescanInterval) return;
  routes_ = scanner_.routes();
  last_route_scan_ = now;
}

const Link* LinkView::find_after_rescan(std::uint32_t index, Steady::time_point now) {
  if (now - last_link_scan_ <= kRescanInterval) return nullptr;
  (void)refresh(interfaces_, now);  // a link that appeared since the last scan
  return links_.find(index);
}

std::string_view LinkView::name(std::uint32_t index) const {
  const Link* link = links_.find(index);
  return link != nullptr ? std::string_view{link->name} : std::string_view{"?"};
}

// Names from server.interfaces -> indices; returns the first name that does not exist.
std::string LinkView::resolve(const std::vector<std::string>& interfaces) {
  interfaces_ = interfaces;
  served_.clear();
  std::string missing;
  for (const std::string& name : interfaces_) {
    const Link* link = links_.find(name);
    if (link != nullptr) {
      served_.insert(link->index);
    } else if (missing.empty()) {
      missing = name;
    }
  }
  return missing;
}

}  // namespace landlord::server
