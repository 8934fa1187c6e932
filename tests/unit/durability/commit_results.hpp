#pragma once
// What a store answers, as the durability tests hand it to Machine::committed().
#include <cstddef>
#include <string>
#include <vector>

#include "landlord/durability/machine.hpp"

namespace landlord::durability::testing {

inline CommitResult all(std::size_t count,
                        store::WriteResult each = store::WriteResult::Written) {
  return std::vector<store::WriteResult>(count, each);
}

inline CommitResult failure(store::StoreError::Kind kind = store::StoreError::Kind::Io,
                            std::string message = "disk on fire") {
  return unexpected(store::StoreError{kind, std::move(message)});
}

}  // namespace landlord::durability::testing
