// libFuzzer target for the lease store's rows as start-up reads them (issue #32): any bytes, read
// as rows of the 20 columns SELECT reads (one row a line, columns split at '|', as
// `sqlite3 leases.db 'select ...'` prints them; an integer column holds the number its text
// starts with, 0 if none, as sqlite3_column_int64 reads text), go through the decoder both
// backends use (detail::decode_record) and the records it accepts into an engine, as restore
// does, then the first reclaim. Never a crash, an overflow or an assertion; a refused row names
// one of its columns; an accepted record writes back to the same text and decodes to itself
// (what the store wrote it must read back). Also compiled into fuzz_store_rows_replay (the
// normal build) over tests/fuzz/corpus-store-rows, whose valid-* seeds must decode fully.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "landlord/base/assert.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/engine/engine.hpp"
#include "record_text.hpp"

namespace {

using namespace landlord;

constexpr std::size_t kColumns = store::detail::kDecodedColumns;
constexpr std::size_t kMaxRows = 256;

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::int64_t leading_integer(std::string_view text) {
  std::int64_t value = 0;
  const char* begin = text.data();
  if (!text.empty() && text.front() == '+') ++begin;
  std::from_chars(begin, text.data() + text.size(), value);  // out of range: 0 (SQLite clamps)
  return value;
}

const std::set<std::string_view> kColumnNames{"address",   "state",       "hwaddr",        "client_id",
                                             "hostname",  "subnet_id",   "granted_at_ms", "lease_time_ms",
                                             "renew_time_ms", "rebind_time_ms", "last_extension",
                                             "fencing_token", "client_key", "classes", "fqdn",
                                             "fqdn_fwd", "fqdn_rev", "dns_state", "relay_agent_info"};

std::optional<std::string> decode(lease::Lease& record, const std::vector<std::string_view>& columns) {
  return store::detail::decode_record(
      record, [&](int column) { return columns[static_cast<std::size_t>(column)]; },
      [&](int column) { return leading_integer(columns[static_cast<std::size_t>(column)]); });
}

// The columns as the store writes a record (the upsert's text and integer forms).
std::vector<std::string> encode(const lease::Lease& record) {
  const auto ms = [](Duration duration) { return std::to_string(duration.count()); };
  return {record.address.to_string(),
          std::string{store::detail::state_text(record.state)},
          std::to_string(record.hardware.type()),
          record.hardware.to_string(),
          record.client_id.to_string(),
          record.hostname,
          std::to_string(record.subnet_id),
          std::to_string(unix_ms(record.granted_at)),
          ms(record.lease_time),
          ms(record.renew_time),
          ms(record.rebind_time),
          std::string{store::detail::extension_text(record.last_extension)},
          std::to_string(record.fencing_token),
          store::detail::client_key_text(record.client),
          record.classes,
          record.fqdn,
          record.dns_sides.forward ? "1" : "0",
          record.dns_sides.reverse ? "1" : "0",
          std::string{store::detail::dns_state_text(record.dns_state)},
          store::detail::bytes_text(record.relay_agent_info)};
}

const config::Config& fuzz_config() {
  static const config::Config config = [] {
    auto loaded = config::load_string(
        "lease:\n  time: 1h\nsubnets:\n"
        "  - subnet: 198.18.0.0/24\n    pools: [198.18.0.10-198.18.0.200]\n"
        "  - subnet: 198.18.1.0/30\n    pools: [198.18.1.1-198.18.1.2]\n    relays: [198.19.0.1]\n",
        "fuzz.yaml");
    LANDLORD_ASSERT(loaded.has_value());
    return std::move(*loaded);
  }();
  return config;
}

// The rows decoded; `all_decoded` whether every row was.
std::size_t run(const std::uint8_t* data, std::size_t size, bool& all_decoded) {
  const std::string_view text{reinterpret_cast<const char*>(data), size};
  std::vector<lease::Lease> records;
  all_decoded = true;
  std::size_t rows = 0;
  for (const std::string_view line : split(text, '\n')) {
    if (line.empty() || ++rows > kMaxRows) continue;
    const auto columns = split(line, '|');
    if (columns.size() != kColumns) {  // SQLite returns all of them or fails the statement
      all_decoded = false;
      continue;
    }
    lease::Lease record;
    if (const auto bad = decode(record, columns)) {
      LANDLORD_ASSERT(kColumnNames.contains(*bad));
      all_decoded = false;
      continue;
    }
    // What the store writes of it reads back as the same record.
    const std::vector<std::string> written = encode(record);
    const std::vector<std::string_view> again_columns{written.begin(), written.end()};
    lease::Lease again;
    LANDLORD_ASSERT(!decode(again, again_columns));
    LANDLORD_ASSERT(encode(again) == written);
    records.push_back(std::move(record));
  }
  // Start-up: every record into the engine, then its first reclaim, at some time after them.
  engine::Engine engine{fuzz_config()};
  for (const auto& record : records) engine.restore(record);
  const TimePoint now = time_from_unix_ms(1'800'000'000'000 + static_cast<std::int64_t>(size) * 1000);
  for (const auto& ended : engine.reclaim(now, 1024)) LANDLORD_ASSERT(ended.state != lease::LeaseState::Offered);
  for (const auto& record : records) static_cast<void>(record.phase(now));
  return records.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bool all_decoded = false;
  (void)run(data, size, all_decoded);
  return 0;
}

// For the replay: a seed named valid-* must decode every row (at least one), so a decoder that
// refuses everything fails.
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size) {
  bool all_decoded = false;
  return run(data, size, all_decoded) > 0 && all_decoded;
}
