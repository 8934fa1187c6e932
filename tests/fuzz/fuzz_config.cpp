// libFuzzer target for the config loader: any bytes give a Config or errors, never a crash, a
// hang or an exception; every error names the file and says something; a Config that loads
// keeps the loader's promises (at least one subnet, pools inside their subnet and within the
// limits). Also compiled into fuzz_config_replay (tests/fuzz/CMakeLists.txt, the normal build)
// over the committed corpus in tests/fuzz/corpus-config.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "landlord/base/assert.hpp"
#include "landlord/config/loader.hpp"

namespace {

using namespace landlord;

bool loads(const std::uint8_t* data, std::size_t size) {
  const std::string_view text{reinterpret_cast<const char*>(data), size};
  const auto loaded = config::load_string(text, "fuzz.yaml");
  if (!loaded) {
    LANDLORD_ASSERT(!loaded.error().empty());
    for (const auto& error : loaded.error()) {
      LANDLORD_ASSERT(error.file == "fuzz.yaml");
      LANDLORD_ASSERT(!error.message.empty());
      LANDLORD_ASSERT(error.line >= 0 && error.column >= 0);
    }
    LANDLORD_ASSERT(!config::format_errors(loaded.error()).empty());
    return false;
  }
  LANDLORD_ASSERT(!loaded->subnets.empty());
  std::uint64_t pool_addresses = 0;
  for (const auto& subnet : loaded->subnets) {
    LANDLORD_ASSERT(subnet.subnet.prefix_length >= 1 && subnet.subnet.prefix_length <= 30);
    for (const auto& pool : subnet.pools) {
      LANDLORD_ASSERT(pool.first <= pool.last);
      LANDLORD_ASSERT(subnet.subnet.contains(pool.first) && subnet.subnet.contains(pool.last));
      pool_addresses += pool.size();
    }
    LANDLORD_ASSERT(subnet.lease.shortest() <= subnet.lease.time &&
                    subnet.lease.time <= subnet.lease.longest());
  }
  LANDLORD_ASSERT(pool_addresses <= (std::uint64_t{1} << 24));
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)loads(data, size);
  return 0;
}

// For the replay: a seed named valid-* must load, so a loader that refuses everything fails.
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size) {
  return loads(data, size);
}
