#include "landlord/wire/options.hpp"

#include <algorithm>
#include <cstring>

#include "landlord/base/big_endian.hpp"

namespace landlord::wire {

namespace {

constexpr bool is_framing(std::uint8_t code) { return code == option::kPad || code == option::kEnd; }

}  // namespace

void Options::assign(const Options& other) {
  used_ = other.used_;
  count_ = other.count_;
  present_ = other.present_;
  std::copy_n(other.data_.begin(), used_, data_.begin());
  std::copy_n(other.offset_.begin(), count_, offset_.begin());
  std::copy_n(other.length_.begin(), count_, length_.begin());
  std::copy_n(other.order_.begin(), count_, order_.begin());
  for (std::size_t position = 0; position < count_; ++position) {
    index_[order_[position]] = static_cast<std::uint8_t>(position);
  }
}

std::span<const std::uint8_t> Options::get(std::uint8_t code) const {
  if (!present_[code]) return {};
  return value_at(index_[code]);
}

void Options::compact() {
  // Move values down in the order they sit in data_, so no move overwrites a value not yet moved.
  std::array<std::uint8_t, 256> by_offset;
  std::copy_n(order_.begin(), count_, by_offset.begin());
  std::sort(by_offset.begin(), by_offset.begin() + count_, [this](std::uint8_t a, std::uint8_t b) {
    return offset_[index_[a]] < offset_[index_[b]];
  });
  std::uint16_t write = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    const std::uint8_t position = index_[by_offset[i]];
    std::memmove(data_.data() + write, data_.data() + offset_[position], length_[position]);
    offset_[position] = write;
    write = static_cast<std::uint16_t>(write + length_[position]);
  }
  used_ = write;
}

bool Options::set(std::uint8_t code, std::span<const std::uint8_t> value) {
  if (is_framing(code) || value.size() > kCapacityBytes) return false;
  const auto length = static_cast<std::uint16_t>(value.size());
  if (present_[code] && length <= length_[index_[code]]) {
    const std::uint8_t position = index_[code];
    if (length > 0) std::memmove(data_.data() + offset_[position], value.data(), length);
    length_[position] = length;
    return true;
  }

  // The value may point into data_ (copying one option to another); compaction would move it.
  std::array<std::uint8_t, kCapacityBytes> saved;
  const bool aliases = !value.empty() && value.data() >= data_.data() &&
                       value.data() < data_.data() + data_.size();
  if (used_ + length > kCapacityBytes) {
    std::size_t live_bytes = 0;
    for (std::size_t position = 0; position < count_; ++position) live_bytes += length_[position];
    if (present_[code]) live_bytes -= length_[index_[code]];
    if (live_bytes + length > kCapacityBytes) return false;
    if (aliases) {
      std::copy(value.begin(), value.end(), saved.begin());
      value = {saved.data(), value.size()};
    }
    if (present_[code]) length_[index_[code]] = 0;  // its old bytes are reclaimed too
    compact();
  }

  if (!present_[code]) {
    index_[code] = static_cast<std::uint8_t>(count_);
    order_[count_] = code;
    ++count_;
    present_[code] = true;
  }
  const std::uint8_t position = index_[code];
  if (length > 0) std::memmove(data_.data() + used_, value.data(), length);
  offset_[position] = used_;
  length_[position] = length;
  used_ = static_cast<std::uint16_t>(used_ + length);
  return true;
}

bool Options::set_u8(std::uint8_t code, std::uint8_t value) {
  return set(code, std::span<const std::uint8_t>{&value, 1});
}

bool Options::set_u16(std::uint8_t code, std::uint16_t value) {
  std::array<std::uint8_t, 2> bytes;
  store_be16(bytes.data(), value);
  return set(code, bytes);
}

bool Options::set_u32(std::uint8_t code, std::uint32_t value) {
  std::array<std::uint8_t, 4> bytes;
  store_be32(bytes.data(), value);
  return set(code, bytes);
}

bool Options::set_ipv4(std::uint8_t code, Ipv4 value) { return set_u32(code, value.to_uint()); }

bool Options::set_text(std::uint8_t code, std::string_view value) {
  return set(code, {reinterpret_cast<const std::uint8_t*>(value.data()), value.size()});
}

void Options::erase(std::uint8_t code) {
  if (!present_[code]) return;
  const std::size_t position = index_[code];
  for (std::size_t next = position + 1; next < count_; ++next) {
    order_[next - 1] = order_[next];
    offset_[next - 1] = offset_[next];
    length_[next - 1] = length_[next];
    index_[order_[next - 1]] = static_cast<std::uint8_t>(next - 1);
  }
  --count_;
  present_[code] = false;
}

void Options::clear() {
  present_.reset();
  count_ = 0;
  used_ = 0;
}

std::optional<std::uint8_t> Options::get_u8(std::uint8_t code) const {
  const auto value = get(code);
  if (!has(code) || value.size() != 1) return std::nullopt;
  return value[0];
}

std::optional<std::uint16_t> Options::get_u16(std::uint8_t code) const {
  const auto value = get(code);
  if (!has(code) || value.size() != 2) return std::nullopt;
  return load_be16(value.data());
}

std::optional<std::uint32_t> Options::get_u32(std::uint8_t code) const {
  const auto value = get(code);
  if (!has(code) || value.size() != 4) return std::nullopt;
  return load_be32(value.data());
}

std::optional<Ipv4> Options::get_ipv4(std::uint8_t code) const {
  const auto value = get_u32(code);
  if (!value) return std::nullopt;
  return Ipv4{*value};
}

std::optional<std::string_view> Options::get_text(std::uint8_t code) const {
  if (!has(code)) return std::nullopt;
  auto value = get(code);
  while (!value.empty() && value.back() == 0) value = value.first(value.size() - 1);
  return std::string_view{reinterpret_cast<const char*>(value.data()), value.size()};
}

bool Options::operator==(const Options& other) const {
  if (count_ != other.count_) return false;
  for (std::size_t position = 0; position < count_; ++position) {
    if (order_[position] != other.order_[position]) return false;
    const auto mine = value_at(position);
    const auto theirs = other.value_at(position);
    if (!std::equal(mine.begin(), mine.end(), theirs.begin(), theirs.end())) return false;
  }
  return true;
}

}  // namespace landlord::wire
