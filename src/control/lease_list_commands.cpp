// lease4-get-all and lease4-get-page: whole-table reads. The table is read in pieces between
// packets (table_scan.hpp), which only filter and copy records; ordering and the JSON text are
// made on the worker thread (Daemon::offload), so a large answer costs the event loop about
// one piece per turn. Each lease is as it was when its piece was read; every address appears
// once, in address order.
#include <algorithm>
#include <iterator>
#include <memory>

#include "arguments.hpp"
#include "handlers.hpp"
#include "lease_json.hpp"

namespace landlord::control::handlers {
namespace {

constexpr std::uint64_t kMaxPageLimit = 65536;

std::string plural_leases(std::size_t count) { return std::to_string(count) + " IPv4 lease(s) found."; }

std::optional<lease::LeaseState> parse_state(std::string_view text) {
  for (auto state : {lease::LeaseState::Offered, lease::LeaseState::Bound, lease::LeaseState::Released,
                     lease::LeaseState::Expired, lease::LeaseState::Declined}) {
    if (lease::to_string(state) == text) return state;
  }
  return std::nullopt;
}

using Leases = std::vector<lease::Lease>;

// On the worker: `leases` ordered and deduplicated, at most `limit` of them, then answered.
void answer_from_worker(Daemon& daemon, std::shared_ptr<Leases> leases, std::size_t limit, bool with_count,
                        Reply reply) {
  const TimePoint now = daemon.now();
  auto text = std::make_shared<std::string>();
  daemon.offload(
      [leases, text, limit, with_count, now] {
        order_by_address(*leases);
        if (leases->size() > limit) leases->erase(leases->begin() + static_cast<std::ptrdiff_t>(limit), leases->end());
        *text = lease_list_text(leases->empty() ? kEmpty : kSuccess, plural_leases(leases->size()), *leases, now,
                                with_count);
      },
      [text, reply = std::move(reply)] { reply(Answer::serialised(std::move(*text))); });
}

}  // namespace

// "subnets": [ids] (Kea) and landlord's "state": bound, released, expired, declined, offered.
void lease4_get_all(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto subnets = args.numbers("subnets");
  const auto state_name = args.text("state");
  if (args.failed()) return reply(answer(kError, args.error()));
  const auto state = state_name ? parse_state(*state_name) : std::nullopt;
  if (state_name && !state) {
    return reply(answer(kError, "'state' must be one of offered, bound, released, expired, declined"));
  }
  auto found = std::make_shared<Leases>();
  scanner.scan(
      [found, subnets, state](const lease::Lease& lease) {
        if (subnets && std::find(subnets->begin(), subnets->end(), lease.subnet_id) == subnets->end()) return;
        if (state && lease.state != *state) return;
        found->push_back(lease);
      },
      [&daemon, found, reply = std::move(reply)] {
        answer_from_worker(daemon, found, found->size(), false, reply);
      });
}

// Pages in address order: "from" is "start" or the last address of the previous page. The scan
// hands what it collects to the worker in batches, which keeps the lowest `limit` addresses, so
// neither side ever holds much more than two pages.
void lease4_get_page(Daemon& daemon, TableScanner& scanner, const Json& arguments, Reply reply) {
  Arguments args{arguments};
  const auto from_text = args.text("from", true);
  const auto limit = args.number("limit", 1, kMaxPageLimit, true);
  if (args.failed()) return reply(answer(kError, args.error()));
  std::optional<Ipv4> from;
  if (*from_text != "start") {
    from = Ipv4::parse(*from_text);
    if (!from) return reply(answer(kError, "'from' must be \"start\" or an IPv4 address"));
  }
  const std::size_t page = *limit;
  const std::size_t batch = std::max<std::size_t>(page, kScanPiece);
  auto collected = std::make_shared<Leases>();  // the event loop's
  auto best = std::make_shared<Leases>();       // the worker's: the page so far, in order
  const auto merge = [best, page](std::shared_ptr<Leases> more) {
    return [best, more, page] {
      // best was read before more: on a tie of addresses the later copy (more's) is kept.
      best->insert(best->end(), std::make_move_iterator(more->begin()), std::make_move_iterator(more->end()));
      order_by_address(*best);
      if (best->size() > page) best->erase(best->begin() + static_cast<std::ptrdiff_t>(page), best->end());
    };
  };
  scanner.scan(
      [&daemon, collected, from, batch, merge](const lease::Lease& lease) {
        if (from && !(*from < lease.address)) return;
        collected->push_back(lease);
        if (collected->size() < batch) return;
        daemon.offload(merge(std::make_shared<Leases>(std::move(*collected))), [] {});
        collected->clear();
      },
      [&daemon, collected, best, page, merge, reply = std::move(reply)] {
        // The last batch, then the page (jobs run in order on the one worker).
        daemon.offload(merge(collected), [] {});
        answer_from_worker(daemon, best, page, true, reply);
      });
}

}  // namespace landlord::control::handlers
