#include "landlord/lease/compact_lease.hpp"

#include <algorithm>
#include <limits>
#include <string_view>

namespace landlord::lease {
namespace {

static_assert(static_cast<unsigned>(DnsState::Failed) < 8, "LeaseExtra::dns keeps the state in 3 bits");

bool whole_seconds_u32(Duration duration) {
  const auto ms = duration.count();
  return ms >= 0 && ms % 1000 == 0 && ms / 1000 <= std::numeric_limits<std::uint32_t>::max();
}

// Option 61 as htype followed by chaddr (ClientIdForm::Chaddr).
bool is_htype_chaddr(const ClientId& id, const HardwareAddress& hardware) {
  const auto bytes = id.bytes();
  return bytes.size() == 1 + std::size_t{hardware.length()} && bytes[0] == hardware.type() &&
         std::equal(bytes.begin() + 1, bytes.end(), hardware.bytes().begin());
}

HardwareAddress hardware_of(const CompactLease& record) {
  return HardwareAddress(record.htype, std::span(record.chaddr.data(), record.hlen));
}

ClientId client_id_of(const CompactLease& record, const LeaseExtra* extra) {
  switch (record.client_id_form) {
    case ClientIdForm::None:
      break;
    case ClientIdForm::Chaddr: {
      std::array<std::uint8_t, 1 + CompactLease::kInlineChaddr> bytes{};
      bytes[0] = record.htype;
      std::copy_n(record.chaddr.begin(), record.hlen, bytes.begin() + 1);
      return ClientId(std::span(bytes.data(), 1 + std::size_t{record.hlen}));
    }
    case ClientIdForm::InExtra: {
      const std::string_view bytes = extra->client_id();
      return ClientId(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
    }
  }
  return {};
}

// A lease with no compact form: the record keeps what the table reads without decoding.
CompactLease kept_whole(Lease lease, LeaseExtra& extra) {
  CompactLease record;
  record.address = lease.address.to_uint();
  record.state = lease.state;
  extra = LeaseExtra{};
  extra.whole = std::make_unique<Lease>(std::move(lease));
  return record;
}

}  // namespace

CompactLease encode(Lease lease, LeaseExtra& extra) {
  if (lease.hardware.length() > CompactLease::kInlineChaddr ||
      lease.client_id.raw().size() > std::numeric_limits<std::uint8_t>::max() ||
      !whole_seconds_u32(lease.renew_time) || !whole_seconds_u32(lease.rebind_time) ||
      lease.classes.size() > std::numeric_limits<std::uint16_t>::max() ||
      lease.fqdn.size() > std::numeric_limits<std::uint8_t>::max() ||
      lease.relay_agent_info.size() > std::numeric_limits<std::uint8_t>::max()) {
    return kept_whole(std::move(lease), extra);
  }
  CompactLease record;
  record.address = lease.address.to_uint();
  record.state = lease.state;
  record.granted_at_ms = unix_ms(lease.granted_at);
  record.lease_time_ms = lease.lease_time.count();
  record.fencing_token = lease.fencing_token;
  record.subnet_id = lease.subnet_id;
  record.renew_time_s = static_cast<std::uint32_t>(lease.renew_time.count() / 1000);
  record.rebind_time_s = static_cast<std::uint32_t>(lease.rebind_time.count() / 1000);
  record.htype = lease.hardware.type();
  record.hlen = lease.hardware.length();
  std::copy_n(lease.hardware.bytes().begin(), record.hlen, record.chaddr.begin());
  record.last_extension = lease.last_extension;
  record.keyed = !lease.client.empty();
  if (lease.client_id.empty()) {
    record.client_id_form = ClientIdForm::None;
  } else if (is_htype_chaddr(lease.client_id, lease.hardware)) {
    record.client_id_form = ClientIdForm::Chaddr;
  } else {
    record.client_id_form = ClientIdForm::InExtra;
    extra.text = lease.client_id.raw();
    extra.client_id_size = static_cast<std::uint8_t>(extra.text.size());
  }
  if (!has_client_key(record, &extra, lease.client)) {  // a key not made from id and chaddr
    return kept_whole(std::move(lease), extra);
  }
  if (extra.text.empty()) {
    extra.text = std::move(lease.hostname);
  } else {
    extra.text += lease.hostname;
  }
  extra.text += lease.fqdn;
  extra.fqdn_size = static_cast<std::uint8_t>(lease.fqdn.size());
  extra.text += lease.relay_agent_info;
  extra.relay_agent_info_size = static_cast<std::uint8_t>(lease.relay_agent_info.size());
  extra.text += lease.classes;
  extra.classes_size = static_cast<std::uint16_t>(lease.classes.size());
  extra.dns = static_cast<std::uint8_t>((lease.dns_sides.forward ? 1 : 0) | (lease.dns_sides.reverse ? 2 : 0) |
                                        static_cast<unsigned>(lease.dns_state) << 2);
  return record;
}

Lease decode(const CompactLease& record, const LeaseExtra* extra) {
  if (extra != nullptr && extra->whole != nullptr) return *extra->whole;
  Lease lease;
  lease.address = Ipv4{record.address};
  lease.hardware = hardware_of(record);
  lease.client_id = client_id_of(record, extra);
  if (record.keyed) lease.client = ClientKey::from(lease.client_id, lease.hardware);
  if (extra != nullptr) {
    lease.hostname = extra->hostname();
    lease.fqdn = extra->fqdn();
    lease.relay_agent_info = extra->relay_agent_info();
    lease.classes = extra->classes();
    lease.dns_sides = extra->dns_sides();
    lease.dns_state = extra->dns_state();
  }
  lease.state = record.state;
  lease.last_extension = record.last_extension;
  lease.subnet_id = record.subnet_id;
  lease.granted_at = time_from_unix_ms(record.granted_at_ms);
  lease.lease_time = Duration{record.lease_time_ms};
  lease.renew_time = std::chrono::seconds{record.renew_time_s};
  lease.rebind_time = std::chrono::seconds{record.rebind_time_s};
  lease.fencing_token = record.fencing_token;
  return lease;
}

ClientKey client_key_of(const CompactLease& record, const LeaseExtra* extra) {
  if (extra != nullptr && extra->whole != nullptr) return extra->whole->client;
  if (!record.keyed) return {};
  return ClientKey::from(client_id_of(record, extra), hardware_of(record));
}

bool has_client_key(const CompactLease& record, const LeaseExtra* extra, const ClientKey& key) {
  if (extra != nullptr && extra->whole != nullptr) return extra->whole->client == key;
  if (!record.keyed) return key.empty();
  // ClientKey::from's encoding, compared in place: 'i' + option 61, or 'h' + htype + chaddr.
  const std::string_view raw = key.raw();
  const std::string_view chaddr(reinterpret_cast<const char*>(record.chaddr.data()), record.hlen);
  const auto tag_htype_chaddr = [&](char tag) {
    return raw.size() == 2 + chaddr.size() && raw[0] == tag &&
           static_cast<std::uint8_t>(raw[1]) == record.htype && raw.substr(2) == chaddr;
  };
  switch (record.client_id_form) {
    case ClientIdForm::None:
      return tag_htype_chaddr('h');
    case ClientIdForm::Chaddr:
      return tag_htype_chaddr('i');
    case ClientIdForm::InExtra:
      return !raw.empty() && raw[0] == 'i' && raw.substr(1) == extra->client_id();
  }
  return false;
}

bool has_client(const CompactLease& record, const LeaseExtra* extra) {
  if (extra != nullptr && extra->whole != nullptr) return !extra->whole->client.empty();
  return record.keyed;
}

TimePoint granted_at_of(const CompactLease& record, const LeaseExtra* extra) {
  if (extra != nullptr && extra->whole != nullptr) return extra->whole->granted_at;
  return time_from_unix_ms(record.granted_at_ms);
}

TimePoint expires_at_of(const CompactLease& record, const LeaseExtra* extra) {
  if (extra != nullptr && extra->whole != nullptr) return extra->whole->expires_at();
  return time_from_unix_ms(record.granted_at_ms) + Duration{record.lease_time_ms};
}

}  // namespace landlord::lease
