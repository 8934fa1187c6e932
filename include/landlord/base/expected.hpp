#pragma once
// A small Expected<T, E>: Debian 12's GCC 12 has no std::expected and Boost 1.74 no
// system::result. Errors at the edges (parsing, config, store) are values, not exceptions.
#include <type_traits>
#include <utility>
#include <variant>

#include "landlord/base/assert.hpp"

namespace landlord {

template <typename E>
struct Unexpected {
  E error;
};
template <typename E>
Unexpected<std::decay_t<E>> unexpected(E&& error) {
  return {std::forward<E>(error)};
}

template <typename T, typename E>
class [[nodiscard]] Expected {
 public:
  Expected(const T& value) : state_(std::in_place_index<0>, value) {}
  Expected(T&& value) : state_(std::in_place_index<0>, std::move(value)) {}
  template <typename G>
  Expected(Unexpected<G> failure) : state_(std::in_place_index<1>, std::move(failure.error)) {}

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { LANDLORD_ASSERT(has_value()); return std::get<0>(state_); }
  const T& value() const& { LANDLORD_ASSERT(has_value()); return std::get<0>(state_); }
  T&& value() && { LANDLORD_ASSERT(has_value()); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  E& error() & { LANDLORD_ASSERT(!has_value()); return std::get<1>(state_); }
  const E& error() const& { LANDLORD_ASSERT(!has_value()); return std::get<1>(state_); }

 private:
  std::variant<T, E> state_;
};

// Expected<void, E>: success carries nothing.
template <typename E>
class [[nodiscard]] Expected<void, E> {
 public:
  Expected() = default;
  template <typename G>
  Expected(Unexpected<G> failure) : error_(std::move(failure.error)), failed_(true) {}

  bool has_value() const { return !failed_; }
  explicit operator bool() const { return has_value(); }
  const E& error() const { LANDLORD_ASSERT(failed_); return error_; }

 private:
  E error_{};
  bool failed_ = false;
};

}  // namespace landlord
