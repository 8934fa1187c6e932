#pragma once
// Client classes: which of the configured classes a client's message makes it a member of.
#include <cstdint>
#include <span>

#include "landlord/config/config.hpp"
#include "landlord/wire/message.hpp"

namespace landlord::engine {

// Bit i set: the message matches classes[i] (every condition of its match holds).
std::uint64_t class_membership(std::span<const config::ClientClass> classes, const wire::Message& message);

// Of the `candidates` (bit i: classes[i]), those the message does not contradict: every
// condition whose fact the message carries holds; a condition on a fact it lacks (option 60,
// 77, 93 or 82 absent, giaddr 0) is not held against it.
std::uint64_t uncontradicted(std::span<const config::ClientClass> classes, const wire::Message& message,
                             std::uint64_t candidates);

// Whether a client of `member_of` may get an address of this pool scope (null: a pool without
// a scope, open to all).
inline bool pool_serves(const config::PoolScope* scope, std::uint64_t member_of) {
  return scope == nullptr || scope->classes == 0 || (scope->classes & member_of) != 0;
}

}  // namespace landlord::engine
