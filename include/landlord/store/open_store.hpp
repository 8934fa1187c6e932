#pragma once
// Chooses a backend from the configuration's `store:` section. Only the plain config struct is
// used here: the store never sees YAML.
#include <memory>

#include "landlord/config/config.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::store {

Expected<std::unique_ptr<LeaseStore>, StoreError> open_store(const config::StoreSection& section);

}  // namespace landlord::store
