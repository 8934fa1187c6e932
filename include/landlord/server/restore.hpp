#pragma once
// Start-up: every stored lease back into the engine before the first packet is answered.
// Reading and decoding the store's rows and putting them into the lease table take about the
// same time each, so they run side by side: a second thread reads the store in chunks while
// the caller's thread restores them (1 M leases: about half the time of doing it in turn).
#include <cstddef>

#include "landlord/base/expected.hpp"
#include "landlord/engine/engine.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::server {

// The number of records read, or the store's error (the engine then holds what came before
// it; the daemon refuses to start).
Expected<std::size_t, store::StoreError> restore_leases(store::LeaseStore& store,
                                                        engine::Engine& engine);

}  // namespace landlord::server
