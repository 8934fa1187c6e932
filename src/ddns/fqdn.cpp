#include "landlord/ddns/fqdn.hpp"

#include <utility>

namespace landlord::ddns {

Expected<ClientFqdn, std::string> parse_client_fqdn(std::span<const std::uint8_t> data) {
  if (data.size() < 3) return unexpected(std::string("shorter than its 3 fixed bytes"));
  ClientFqdn fqdn;
  fqdn.flags = data[0];
  fqdn.rcode1 = data[1];
  fqdn.rcode2 = data[2];
  if (fqdn.n() && fqdn.s()) return unexpected(std::string("N and S both set"));
  const auto name = data.subspan(3);
  if (fqdn.e()) {
    std::size_t at = 0;
    std::size_t wire_length = 1;
    while (at < name.size()) {
      const std::uint8_t length = name[at];
      if (length == 0) {
        if (at + 1 != name.size()) return unexpected(std::string("bytes after the root label"));
        fqdn.fully_qualified = true;
        break;
      }
      if (length > kMaxLabelLength) return unexpected(std::string("label over 63 bytes or a compression pointer"));
      if (at + 1 + length > name.size()) return unexpected(std::string("label runs past the option"));
      wire_length += 1 + length;
      if (wire_length > kMaxNameWireLength) return unexpected(std::string("name over 255 bytes"));
      fqdn.labels.emplace_back(reinterpret_cast<const char*>(&name[at + 1]), length);
      at += 1 + length;
    }
    return fqdn;
  }
  // The deprecated ASCII form (RFC 4702 §2.3.1): dotted text, a trailing dot for a full name.
  const std::string_view text(reinterpret_cast<const char*>(name.data()), name.size());
  if (text.size() > 254) return unexpected(std::string("name over 253 characters"));
  if (!text.empty()) {
    fqdn.labels = split_labels(text, fqdn.fully_qualified);
    for (const auto& label : fqdn.labels) {
      if (label.size() > kMaxLabelLength) return unexpected(std::string("label over 63 bytes"));
    }
  }
  return fqdn;
}

std::vector<std::uint8_t> encode_client_fqdn(const ClientFqdn& fqdn) {
  std::vector<std::uint8_t> out{fqdn.flags, fqdn.rcode1, fqdn.rcode2};
  if (fqdn.e()) {
    for (const auto& label : fqdn.labels) {
      out.push_back(static_cast<std::uint8_t>(label.size()));
      out.insert(out.end(), label.begin(), label.end());
    }
    if (fqdn.fully_qualified) out.push_back(0);
    return out;
  }
  for (std::size_t i = 0; i < fqdn.labels.size(); ++i) {
    if (i > 0) out.push_back('.');
    out.insert(out.end(), fqdn.labels[i].begin(), fqdn.labels[i].end());
  }
  if (fqdn.fully_qualified && !fqdn.labels.empty()) out.push_back('.');
  return out;
}

std::optional<std::string> sanitise_label(std::string_view raw) {
  std::string label;
  for (const char c : raw) {
    if (c >= 'A' && c <= 'Z') {
      label += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
      label += c;
    }
  }
  const auto first = label.find_first_not_of('-');
  if (first == std::string::npos) return std::nullopt;
  label = label.substr(first, label.find_last_not_of('-') - first + 1);
  if (label.size() > kMaxLabelLength) return std::nullopt;
  return label;
}

std::vector<std::string> split_labels(std::string_view text, bool& fully_qualified) {
  fully_qualified = !text.empty() && text.back() == '.';
  if (fully_qualified) text.remove_suffix(1);
  std::vector<std::string> labels;
  if (text.empty()) return labels;
  while (true) {
    const auto dot = text.find('.');
    labels.emplace_back(text.substr(0, dot));
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  return labels;
}

Expected<Name, std::string> qualify(const std::vector<std::string>& raw_labels, bool fully_qualified,
                                    const Name& zone) {
  if (raw_labels.empty()) return unexpected(std::string("empty name"));
  std::vector<std::string> labels;
  for (const auto& raw : raw_labels) {
    if (raw.empty()) return unexpected(std::string("empty label"));
    if (raw.size() > kMaxLabelLength) return unexpected(std::string("label over 63 bytes"));
    auto label = sanitise_label(raw);
    if (!label) return unexpected(std::string("a label with no letter or digit"));
    labels.push_back(std::move(*label));
  }
  auto name = Name::from_labels(labels);
  if (!name) return unexpected(name.error());
  if (fully_qualified || name->is_within(zone)) return name;
  return name->under(zone);
}

const char* name_source_text(NameSource source) {
  switch (source) {
    case NameSource::kNone: return "none";
    case NameSource::kClientFqdn: return "client-fqdn";
    case NameSource::kHostname: return "hostname";
    case NameSource::kReservation: return "reservation";
  }
  return "?";
}

namespace {

// A hostname (option 12 or a reservation's) made into a name; the problem when it cannot be.
std::optional<Name> name_from_hostname(std::string_view text, const Name& zone, std::string& problem) {
  bool fully_qualified = false;
  auto name = qualify(split_labels(text, fully_qualified), fully_qualified, zone);
  if (!name) {
    problem = "hostname: " + name.error();
    return std::nullopt;
  }
  return std::move(*name);
}

void finish_reply(NameDecision& decision, const ClientFqdn& client) {
  ClientFqdn reply;
  reply.flags = static_cast<std::uint8_t>(client.flags & ClientFqdn::kFlagE);
  if (decision.forward) reply.flags |= ClientFqdn::kFlagS;
  if (decision.forward != client.s()) reply.flags |= ClientFqdn::kFlagO;
  if (!decision.forward && !decision.reverse) reply.flags |= ClientFqdn::kFlagN;
  // RFC 4702 §4: a server sets both RCODE fields to 255.
  reply.rcode1 = 255;
  reply.rcode2 = 255;
  if (decision.fqdn) {
    reply.labels = decision.fqdn->labels();
    reply.fully_qualified = true;
  }
  decision.reply_fqdn = std::move(reply);
}

}  // namespace

NameDecision decide_name(const Settings& settings, const NameRequest& request) {
  NameDecision decision;
  std::optional<ClientFqdn> client;
  if (request.client_fqdn) {
    auto parsed = parse_client_fqdn(*request.client_fqdn);
    if (parsed) {
      client = std::move(*parsed);
    } else {
      decision.problem = "option 81: " + parsed.error();
    }
  }
  if (client) {
    decision.source = NameSource::kClientFqdn;
    if (client->n()) {
      decision.forward = decision.reverse = settings.override_no_update;
    } else {
      decision.reverse = true;
      decision.forward = client->s() || settings.override_client_update;
    }
    if (!client->labels.empty()) {
      auto name = qualify(client->labels, client->fully_qualified, settings.forward_zone);
      if (name) {
        decision.fqdn = std::move(*name);
      } else {
        decision.problem = "option 81: " + name.error();
      }
    } else if (request.hostname) {
      // An empty option 81 leaves the name to the server (RFC 4702 §4): the hostname if any.
      decision.fqdn = name_from_hostname(*request.hostname, settings.forward_zone, decision.problem);
    } else if (request.reservation_hostname) {
      decision.fqdn = name_from_hostname(*request.reservation_hostname, settings.forward_zone,
                                         decision.problem);
    }
  } else if (request.hostname) {
    decision.source = NameSource::kHostname;
    decision.forward = decision.reverse = true;
    decision.fqdn = name_from_hostname(*request.hostname, settings.forward_zone, decision.problem);
    if (decision.fqdn) decision.reply_hostname = decision.fqdn->labels().front();
  } else if (request.reservation_hostname) {
    decision.source = NameSource::kReservation;
    decision.forward = decision.reverse = true;
    decision.fqdn = name_from_hostname(*request.reservation_hostname, settings.forward_zone,
                                       decision.problem);
  }
  if (!decision.fqdn) {
    decision.forward = decision.reverse = false;
  } else if (decision.forward && !decision.fqdn->is_within(settings.forward_zone)) {
    decision.forward = false;
    decision.outside_zone = true;
  }
  if (client) finish_reply(decision, *client);
  return decision;
}

}  // namespace landlord::ddns
