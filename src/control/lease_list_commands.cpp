// lease4-get-all and lease4-get-page: whole-table reads. The table is read in pieces between
// packets (table_scan.hpp), which only filter and copy records flat (lease_listing.hpp), a batch
// per piece handed to the worker thread (Daemon::offload); ordering and the JSON text are the
// worker's, and the text is made a piece at a time as the transport sends it (AnswerStream). So
// a large answer costs the event loop about one piece per turn and is never one string. Each
// lease is as it was when its piece was read; every address appears once, in address order.
#include <algorithm>
#include <limits>
#include <memory>

#include "arguments.hpp"
#include "handlers.hpp"
#include "lease_json.hpp"
#include "lease_listing.hpp"

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

using ListingPtr = std::shared_ptr<Listing>;

// The text of an answer is made in pieces of about this size.
constexpr std::size_t kAnswerPiece = 256 << 10;

// The batch the loop filled goes to the worker, which adds it to `listing` (and runs `then` there,
// after); the loop starts a new batch.
void hand_over(Daemon& daemon, Listing& batch, const ListingPtr& listing,
               std::function<void(Listing&)> then = nullptr) {
  daemon.offload(
      [listing, taken = std::make_shared<Listing>(std::move(batch)), then = std::move(then)] {
        listing->append(std::move(*taken));
        if (then) then(*listing);
      },
      [] {});
  batch = Listing{};
  batch.leases.reserve(kScanPiece);
}

// On the worker: `listing` ordered, at most `limit` leases; then answered with a stream that
// writes it out on the worker, a piece at a time.
void answer_listing(Daemon& daemon, ListingPtr listing, std::size_t limit, bool with_count, Reply reply) {
  const TimePoint now = daemon.now();
  daemon.offload([listing, limit] { listing->order(limit); },
                 [&daemon, listing, now, with_count, reply = std::move(reply)] {
                   const std::size_t count = listing->sequence.size();  // the worker's again only in the stream
                   std::string head = R"({"arguments":{)";
                   if (with_count) head += R"("count":)" + std::to_string(count) + ",";
                   head += R"("leases":[)";
                   std::string tail = R"(]},"result":)" + std::to_string(count == 0 ? kEmpty : kSuccess) +
                                      R"(,"text":)" + nlohmann::json(plural_leases(count)).dump() + "}";
                   auto produce = [listing, now, head = std::move(head), tail = std::move(tail),
                                   at = std::size_t{0}](std::string& out) mutable {
                     out.reserve(kAnswerPiece + 1024);
                     if (at == 0) out += head;
                     const auto& sequence = listing->sequence;
                     for (; at < sequence.size() && out.size() < kAnswerPiece; ++at) {
                       if (at > 0) out += ',';
                       append_lease_json(out, *listing, listing->leases[sequence[at]], now);
                     }
                     if (at < sequence.size()) return true;
                     out += tail;
                     *listing = Listing{};  // written out: freed here, off the loop
                     return false;
                   };
                   reply(std::make_shared<AnswerStream>(daemon, std::move(produce)));
                 });
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
  auto batch = std::make_shared<Listing>();  // the event loop's
  auto listing = std::make_shared<Listing>();  // the worker's
  batch->leases.reserve(kScanPiece);
  scanner.scan(
      [&daemon, batch, listing, subnets, state](const lease::Lease& lease) {
        if (subnets && std::find(subnets->begin(), subnets->end(), lease.subnet_id) == subnets->end()) return;
        if (state && lease.state != *state) return;
        batch->add(lease);
        if (batch->size() >= kScanPiece) hand_over(daemon, *batch, listing);
      },
      [&daemon, batch, listing, reply = std::move(reply)] {
        hand_over(daemon, *batch, listing);
        answer_listing(daemon, listing, std::numeric_limits<std::size_t>::max(), false, reply);
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
  auto batch = std::make_shared<Listing>();  // the event loop's
  auto best = std::make_shared<Listing>();   // the worker's: the page so far, and what came since
  batch->leases.reserve(kScanPiece);
  // The worker keeps the lowest `page` addresses, ordering what it holds now and then (a later copy
  // of an address is kept), so it never holds much more than two pages.
  const auto trim = [page](Listing& held) {
    if (held.size() < std::max(2 * page, 4 * kScanPiece)) return;
    held.order(page);
    held.keep_ordered();
  };
  scanner.scan(
      [&daemon, batch, best, from, trim](const lease::Lease& lease) {
        if (from && !(*from < lease.address)) return;
        batch->add(lease);
        if (batch->size() >= kScanPiece) hand_over(daemon, *batch, best, trim);
      },
      [&daemon, batch, best, page, reply = std::move(reply)] {
        hand_over(daemon, *batch, best);
        answer_listing(daemon, best, page, true, reply);
      });
}

}  // namespace landlord::control::handlers
