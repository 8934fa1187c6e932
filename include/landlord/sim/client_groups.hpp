#pragma once
// Groups of clients that send different options, so a server's classes can be exercised by one
// run: a share of the clients with option 93 = 7, another with 60 = PXEClient, the rest with
// the run's own options. Each group's options are the run's, with the group's replacing the
// same code, and its parameter request list and lease time replacing the run's.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/expected.hpp"
#include "landlord/sim/client_macs.hpp"
#include "landlord/sim/request_options.hpp"

namespace landlord::sim {

struct ClientGroup {
  double share = 0;        // of all clients: above 0, at most 1; the shares add up to at most 1
  RequestOptions options;  // the group's own: merged over the run's by `merged`
};

// "share=30%;option=93:u16:7;option=60:text:PXEClient;prl=1,3,6;request_lease_time=10m"
// (share as a fraction 0.3 or a percentage 30%; option repeatable; the rest optional).
Expected<ClientGroup, std::string> parse_client_group(std::string_view text);

RequestOptions merged(const RequestOptions& run, const RequestOptions& group);

// The group client `index` belongs to, or groups.size() for the run's own options. Clients are
// spread by the golden-ratio sequence, so every stretch of consecutive clients holds each
// group's share (to within a few clients), whatever the seed.
std::size_t group_of(ClientIndex index, std::span<const ClientGroup> groups);

}  // namespace landlord::sim
