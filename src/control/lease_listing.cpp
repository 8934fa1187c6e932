#include "lease_listing.hpp"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

#include "landlord/base/hex.hpp"
#include "lease_json.hpp"

namespace landlord::control {
namespace {

void append_number(std::string& out, std::int64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

void append_unsigned(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, end);
}

// Printable ASCII but '"' and '\\': written as is by nlohmann::json::dump.
bool plain(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\';
  });
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  if (plain(text)) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  // Anything else (escapes, UTF-8, bytes that are not UTF-8) exactly as the library writes it.
  out += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void Listing::add(const lease::Lease& lease) {
  ListedLease& listed = leases.emplace_back();
  listed.granted_at = lease.granted_at;
  listed.lease_time = lease.lease_time;
  listed.renew_time = lease.renew_time;
  listed.rebind_time = lease.rebind_time;
  listed.fencing_token = lease.fencing_token;
  listed.address = lease.address.to_uint();
  listed.subnet_id = lease.subnet_id;
  listed.state = lease.state;
  const auto hardware = lease.hardware.bytes();
  listed.hlen = static_cast<std::uint8_t>(std::min(hardware.size(), listed.chaddr.size()));
  std::copy_n(hardware.begin(), listed.hlen, listed.chaddr.begin());
  const std::string_view client_id = lease.client_id.raw();
  listed.text_at = text.size();
  listed.client_id_size = static_cast<std::uint32_t>(client_id.size());
  listed.hostname_size = static_cast<std::uint32_t>(lease.hostname.size());
  listed.fqdn_size = static_cast<std::uint32_t>(lease.fqdn.size());
  listed.classes_size = static_cast<std::uint32_t>(lease.classes.size());
  listed.dns_sides = lease.dns_sides;
  listed.dns_state = lease.dns_state;
  text += client_id;
  text += lease.hostname;
  text += lease.fqdn;
  text += lease.classes;
}

void Listing::append(Listing&& more) {
  if (leases.empty()) {
    *this = std::move(more);
    return;
  }
  const std::size_t shift = text.size();
  leases.reserve(leases.size() + more.leases.size());
  for (ListedLease& listed : more.leases) {
    listed.text_at += shift;
    leases.push_back(listed);
  }
  text += more.text;
  more = {};
}

void Listing::order(std::size_t limit) {
  // Address, then position: a stable order in which the last copy of an address comes last.
  std::vector<std::uint64_t> keys;
  keys.reserve(leases.size());
  for (std::size_t i = 0; i < leases.size(); ++i) keys.push_back(std::uint64_t{leases[i].address} << 32 | i);
  std::sort(keys.begin(), keys.end());
  sequence.clear();
  sequence.reserve(std::min(limit, keys.size()));
  for (std::size_t i = 0; i < keys.size() && sequence.size() < limit; ++i) {
    if (i + 1 < keys.size() && (keys[i + 1] >> 32) == (keys[i] >> 32)) continue;  // a later copy follows
    sequence.push_back(static_cast<std::uint32_t>(keys[i]));
  }
}

void Listing::keep_ordered() {
  Listing kept;
  kept.leases.reserve(sequence.size());
  for (const std::uint32_t position : sequence) {
    ListedLease listed = leases[position];
    const std::size_t size =
        std::size_t{listed.client_id_size} + listed.hostname_size + listed.fqdn_size + listed.classes_size;
    kept.text.append(text, listed.text_at, size);
    listed.text_at = kept.text.size() - size;
    kept.leases.push_back(listed);
  }
  kept.sequence.resize(kept.leases.size());
  for (std::uint32_t i = 0; i < kept.sequence.size(); ++i) kept.sequence[i] = i;
  *this = std::move(kept);
}

void append_lease_json(std::string& out, const Listing& listing, const ListedLease& lease, TimePoint now) {
  const std::string_view text = std::string_view(listing.text).substr(lease.text_at);
  const std::string_view client_id = text.substr(0, lease.client_id_size);
  const std::string_view hostname = text.substr(lease.client_id_size, lease.hostname_size);
  const std::string_view fqdn = text.substr(std::size_t{lease.client_id_size} + lease.hostname_size, lease.fqdn_size);
  std::string_view classes =
      text.substr(std::size_t{lease.client_id_size} + lease.hostname_size + lease.fqdn_size, lease.classes_size);
  // Keys in nlohmann::json's order (sorted), as lease_to_json's object dumps them.
  out += R"({"classes":[)";
  for (bool first = true; !classes.empty(); first = false) {
    const std::size_t comma = classes.find(',');
    if (!first) out += ',';
    append_json_string(out, classes.substr(0, comma));
    classes = comma == std::string_view::npos ? std::string_view{} : classes.substr(comma + 1);
  }
  out += "]";
  if (!client_id.empty()) {  // left out when the client sent none, as Kea does
    out += R"(,"client-id":")";
    append_colon_hex(out, std::span(reinterpret_cast<const std::uint8_t*>(client_id.data()), client_id.size()));
    out += '"';
  }
  out += R"(,"cltt":)";
  append_number(out, unix_seconds(lease.granted_at));
  out += R"(,"dns-state":")";
  out += lease::to_string(lease.dns_state);
  out += R"(","expire":)";
  append_number(out, unix_seconds(lease.granted_at + lease.lease_time));
  out += R"(,"fencing-token":)";
  append_unsigned(out, lease.fencing_token);
  out += R"(,"fqdn":)";
  append_json_string(out, fqdn);
  out += lease.dns_sides.forward ? R"(,"fqdn-fwd":true)" : R"(,"fqdn-fwd":false)";
  out += lease.dns_sides.reverse ? R"(,"fqdn-rev":true)" : R"(,"fqdn-rev":false)";
  out += R"(,"hostname":)";
  append_json_string(out, hostname);
  out += R"(,"hw-address":")";
  append_colon_hex(out, std::span(lease.chaddr.data(), lease.hlen));
  out += R"(","ip-address":")";
  out += Ipv4{lease.address}.to_string();
  out += R"(","lease-state":")";
  out += lease::to_string(lease.state);
  out += '"';
  if (lease.state == lease::LeaseState::Bound) {
    lease::Lease timing;  // Lease::phase, on the times alone
    timing.granted_at = lease.granted_at;
    timing.lease_time = lease.lease_time;
    timing.renew_time = lease.renew_time;
    timing.rebind_time = lease.rebind_time;
    out += R"(,"phase":")";
    out += phase_name(timing.phase(now));
    out += '"';
  }
  out += R"(,"rebind-time":)";
  append_number(out, to_seconds(lease.rebind_time));
  out += R"(,"renew-time":)";
  append_number(out, to_seconds(lease.renew_time));
  out += R"(,"state":)";
  append_number(out, kea_state(lease.state));
  out += R"(,"subnet-id":)";
  append_unsigned(out, lease.subnet_id);
  out += R"(,"valid-lft":)";
  append_number(out, to_seconds(lease.lease_time));
  out += '}';
}

}  // namespace landlord::control
