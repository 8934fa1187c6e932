#pragma once
// Reads a command's "arguments" map with type checks. The first problem is kept as the
// command's error text; readers after it return nullopt, so a handler reads everything and
// checks failed() once.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "landlord/base/client_id.hpp"
#include "landlord/base/hardware_address.hpp"
#include "landlord/base/ipv4.hpp"

namespace landlord::control {

class Arguments {
 public:
  explicit Arguments(const nlohmann::json& arguments);

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  bool has(std::string_view key) const;

  std::optional<std::string> text(std::string_view key, bool required = false);
  std::optional<std::uint64_t> number(std::string_view key, std::uint64_t min, std::uint64_t max,
                                      bool required = false);
  std::optional<bool> flag(std::string_view key);
  std::optional<Ipv4> address(std::string_view key, bool required = false);
  std::optional<HardwareAddress> hardware(std::string_view key);
  std::optional<ClientId> client_id(std::string_view key);
  // A host name as DHCP carries one (option 12): at most kMaxHostname bytes, no control
  // character (NUL, newline, escape, DEL); other bytes as a client may send them.
  static constexpr std::size_t kMaxHostname = 255;
  std::optional<std::string> hostname(std::string_view key);
  // A list of integers (lease4-get-all "subnets").
  std::optional<std::vector<std::uint64_t>> numbers(std::string_view key);
  void fail(std::string message);

 private:
  const nlohmann::json* find(std::string_view key, bool required);
  const nlohmann::json& arguments_;
  std::string error_;
};

}  // namespace landlord::control
