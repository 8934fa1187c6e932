// libFuzzer target for the imported lease files (`landlord import`): the first byte chooses the
// reader (0 Kea CSV, 1 dhcpd.leases, 2 dnsmasq.leases, modulo 3), the rest is the file. Any
// bytes give leases and failures, never a crash, a hang or an overflow; what a report shows is
// escaped and short; and the plan made of them (under a config with fixed T1/T2 in one subnet
// and lease.min/max in another) keeps the import's promises: every record bound, in a pool,
// with whole-second times 1s <= T1 < T2 < lease time within what a DHCP lease can carry. Also
// compiled into fuzz_lease_file_replay (tests/unit/migrate, the normal build) over the committed
// corpus in tests/fuzz/corpus-lease-file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "landlord/base/assert.hpp"
#include "landlord/config/loader.hpp"
#include "landlord/migrate/import_plan.hpp"
#include "landlord/migrate/imported_times.hpp"

namespace {

using namespace landlord;
using namespace std::chrono_literals;

const config::Config& fuzz_config() {
  static const config::Config config = [] {
    auto loaded = config::load_string(R"(
subnets:
  - subnet: 198.18.0.0/24
    pools: [198.18.0.100-198.18.0.199]
    lease: {time: 60s, renew: 30s, rebind: 52s}
    reservations:
      - {mac: "02:00:00:00:00:50", address: 198.18.0.50}
  - subnet: 198.18.1.0/24
    pools: [198.18.1.10-198.18.1.250]
    lease: {time: 5m, min: 2m, max: 10m}
)", "fuzz.yaml");
    LANDLORD_ASSERT(loaded.has_value());
    return std::move(loaded.value());
  }();
  return config;
}

bool printable(std::string_view text, bool lines = false) {
  for (const char c : text) {
    if ((c < 0x20 || c >= 0x7f) && !(lines && c == '\n')) return false;
  }
  return true;
}

// Reads and plans; true when the file read without a failure and gave at least one record.
bool imports(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return false;
  const auto format = static_cast<migrate::Format>(data[0] % 3);
  const std::string_view text{reinterpret_cast<const char*>(data + 1), size - 1};
  const migrate::LeaseFile file = migrate::read_lease_file(format, text);
  for (const migrate::ForeignLease& lease : file.leases) {
    LANDLORD_ASSERT(lease.line >= 1);
    LANDLORD_ASSERT(lease.text.size() <= migrate::kMaxShownBytes + 3 && printable(lease.text));
    if (lease.expires) {
      LANDLORD_ASSERT(unix_seconds(*lease.expires) >= 0 && unix_seconds(*lease.expires) <= 253'402'300'799);
    }
  }
  for (const migrate::LineFailure& failure : file.failures) {
    LANDLORD_ASSERT(failure.line >= 0 && !failure.reason.empty());
    LANDLORD_ASSERT(printable(failure.text) && printable(failure.reason));
  }

  const config::Config& config = fuzz_config();
  const TimePoint now = time_from_unix_ms(2'000'000'000'000);
  engine::Engine engine{config};
  const migrate::ImportPlan plan = migrate::plan_import(file, config, engine, now);
  LANDLORD_ASSERT(plan.leases_read == file.leases.size());
  LANDLORD_ASSERT(plan.records.size() <= plan.live && plan.live <= plan.leases_read);
  LANDLORD_ASSERT(plan.failures.count == file.failures.size());
  for (const lease::Lease& record : plan.records) {
    LANDLORD_ASSERT(record.state == lease::LeaseState::Bound);
    LANDLORD_ASSERT(record.granted_at == now);
    LANDLORD_ASSERT(record.lease_time.count() % 1000 == 0 && record.renew_time.count() % 1000 == 0 &&
                    record.rebind_time.count() % 1000 == 0);
    LANDLORD_ASSERT(record.renew_time >= 1s && record.renew_time < record.rebind_time &&
                    record.rebind_time < record.lease_time && record.lease_time <= migrate::kLongestLease);
    const bool bounded = config.subnets[1].subnet.contains(record.address);
    if (bounded) LANDLORD_ASSERT(record.lease_time >= 2min && record.lease_time <= 10min);
    LANDLORD_ASSERT(config.subnets[0].subnet.contains(record.address) || bounded);
  }
  const std::string listed = migrate::problems(plan, "fuzz", 20);
  LANDLORD_ASSERT(printable(listed, true) && std::count(listed.begin(), listed.end(), '\n') <= 21);
  LANDLORD_ASSERT(printable(migrate::describe(plan, 5), true));
  return file.failures.empty() && !plan.records.empty();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)imports(data, size);
  return 0;
}

// For the replay: a seed named valid-* must read cleanly and import, so a reader that refuses
// everything fails.
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size) { return imports(data, size); }
