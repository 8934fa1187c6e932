#include "landlord/store/lease_store.hpp"

namespace landlord::store {

static_assert(static_cast<std::size_t>(StoreError::Kind::Other) + 1 == StoreError::kKinds,
              "kKinds counts every StoreError::Kind");

std::string_view to_string(StoreError::Kind kind) {
  switch (kind) {
    case StoreError::Kind::Io: return "io";
    case StoreError::Kind::Full: return "full";
    case StoreError::Kind::ReadOnly: return "read-only";
    case StoreError::Kind::Locked: return "locked";
    case StoreError::Kind::Corrupt: return "corrupt";
    case StoreError::Kind::Foreign: return "foreign";
    case StoreError::Kind::Other: return "other";
  }
  return "unknown";
}

}  // namespace landlord::store
