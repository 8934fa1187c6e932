// Drives ddns::Updater against a real DNS server with plain blocking sockets on loopback: the
// smallest I/O layer the sans-I/O updater needs (UDP, TCP with its length prefix, a wait until
// the updater's deadline). One operation per run; prints the completion as one line:
//   add alpha.lab.test. 198.18.0.5 forward=done reverse=done cause=none sent=2 detail=
// Used by ddns_bind.sh against a throwaway BIND 9.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "landlord/ddns/updater.hpp"

using namespace landlord;
using namespace landlord::ddns;

namespace {

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "ddns_driver: %s\nusage: ddns_driver --server ADDR:PORT --key-file FILE --forward ZONE "
               "--reverse ZONE [--mode MODE] [--tcp] (add|remove) ADDRESS FQDN CHADDR [LEASE_S]\n",
               why);
  std::exit(2);
}

TimePoint wall_now() {
  return time_from_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count());
}

sockaddr_in to_sockaddr(const ServerAddress& server) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(server.port);
  address.sin_addr.s_addr = htonl(server.address.to_uint());
  return address;
}

bool read_exactly(int fd, std::uint8_t* into, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    pollfd wait{fd, POLLIN, 0};
    if (poll(&wait, 1, 3000) != 1) return false;
    const ssize_t got = read(fd, into + done, size - done);
    if (got <= 0) return false;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

// One TCP exchange (RFC 1035 §4.2.2: a two-byte length before each message).
std::optional<std::vector<std::uint8_t>> tcp_exchange(const Outgoing& message) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return std::nullopt;
  const sockaddr_in address = to_sockaddr(message.server);
  std::optional<std::vector<std::uint8_t>> answer;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) {
    std::vector<std::uint8_t> framed{static_cast<std::uint8_t>(message.bytes.size() >> 8),
                                     static_cast<std::uint8_t>(message.bytes.size())};
    framed.insert(framed.end(), message.bytes.begin(), message.bytes.end());
    std::uint8_t length[2];
    if (write(fd, framed.data(), framed.size()) == static_cast<ssize_t>(framed.size()) &&
        read_exactly(fd, length, 2)) {
      std::vector<std::uint8_t> bytes(static_cast<std::size_t>(length[0] << 8 | length[1]));
      if (read_exactly(fd, bytes.data(), bytes.size())) answer = std::move(bytes);
    }
  }
  close(fd);
  return answer;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> options;
  std::vector<std::string> positional;
  bool tcp = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--tcp") {
      tcp = true;
    } else if (arg.rfind("--", 0) == 0) {
      if (i + 1 >= argc) usage(("missing value for " + arg).c_str());
      options[arg] = argv[++i];
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() < 4 || positional.size() > 5) usage("wrong number of arguments");
  for (const char* required : {"--server", "--key-file", "--forward", "--reverse"}) {
    if (!options.contains(required)) usage((std::string("missing ") + required).c_str());
  }

  Settings settings;
  const auto server = parse_server_address(options["--server"]);
  if (!server) usage("bad --server");
  settings.server = *server;
  settings.always_tcp = tcp;
  settings.max_attempts = 3;
  std::ifstream key_in(options["--key-file"]);
  const std::string key_text{std::istreambuf_iterator<char>(key_in), {}};
  auto keys = parse_key_file(key_text, options["--key-file"]);
  if (!keys) usage(keys.error().c_str());
  settings.key = keys->front();
  auto forward = Name::from_text(options["--forward"]);
  auto reverse = Name::from_text(options["--reverse"]);
  if (!forward || !reverse) usage("bad zone");
  settings.forward_zone = *forward;
  settings.reverse_zones = {*reverse};
  if (options.contains("--mode")) {
    const auto mode = conflict_mode_from_text(options["--mode"]);
    if (!mode) usage("bad --mode");
    settings.conflict_mode = *mode;
  }
  if (auto valid = validate(settings); !valid) usage(valid.error().c_str());

  Binding binding;
  const auto address = Ipv4::parse(positional[1]);
  auto fqdn = Name::from_text(positional[2]);
  const auto hardware = HardwareAddress::parse(positional[3]);
  if (!address || !fqdn || !hardware) usage("bad address, name or hardware address");
  binding.address = *address;
  binding.fqdn = *fqdn;
  binding.identifier = dhcid_identifier(ClientId{}, *hardware);
  binding.lease_time = std::chrono::seconds(positional.size() == 5 ? std::stoul(positional[4]) : 3600);

  const int udp = socket(AF_INET, SOCK_DGRAM, 0);
  const sockaddr_in server_address = to_sockaddr(settings.server);
  if (udp < 0 || connect(udp, reinterpret_cast<const sockaddr*>(&server_address), sizeof server_address) != 0) {
    std::perror("ddns_driver: udp socket");
    return 1;
  }
  Updater updater(settings, static_cast<std::uint32_t>(getpid()) * 2654435761u);
  const bool queued = positional[0] == "add" ? updater.add(binding, wall_now())
                                             : positional[0] == "remove" ? updater.remove(binding, wall_now())
                                                                          : (usage("add or remove"), false);
  (void)queued;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<Completion> completions;
  while (completions.empty() && std::chrono::steady_clock::now() < give_up) {
    for (auto& message : updater.take_outgoing()) {
      if (message.transport == Transport::kTcp) {
        const auto answer = tcp_exchange(message);
        if (answer) {
          updater.on_response(*answer, wall_now());
        } else {
          updater.on_send_failed(message.id, wall_now());
        }
      } else if (send(udp, message.bytes.data(), message.bytes.size(), 0) < 0) {
        updater.on_send_failed(message.id, wall_now());
      }
    }
    completions = updater.take_completions();
    if (!completions.empty()) break;
    const auto deadline = updater.next_deadline();
    const auto wait_ms = deadline ? std::max<std::int64_t>(0, unix_ms(*deadline) - unix_ms(wall_now())) : 1000;
    pollfd wait{udp, POLLIN, 0};
    if (poll(&wait, 1, static_cast<int>(std::min<std::int64_t>(wait_ms, 1000))) == 1) {
      std::uint8_t buffer[kMaxMessageSize];
      const ssize_t got = recv(udp, buffer, sizeof buffer, 0);
      if (got > 0) updater.on_response(std::span<const std::uint8_t>(buffer, static_cast<std::size_t>(got)), wall_now());
    }
    updater.tick(wall_now());
    completions = updater.take_completions();
  }
  close(udp);
  if (completions.empty()) {
    std::fprintf(stderr, "ddns_driver: no completion within 60 s\n");
    return 1;
  }
  const Completion& done = completions.front();
  std::printf("%s %s %s forward=%s reverse=%s cause=%s sent=%u detail=%s\n", operation_text(done.operation),
              done.binding.fqdn.to_text().c_str(), done.binding.address.to_string().c_str(),
              record_status_text(done.forward), record_status_text(done.reverse), cause_text(done.cause),
              done.messages_sent, done.detail.c_str());
  return 0;
}
