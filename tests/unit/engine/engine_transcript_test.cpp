// Golden transcripts (etcd raft's testdata style): each file in testdata/ is a list of
// commands, each followed by "----" and the output it must produce, blocks separated by a
// blank line. Time only moves with `advance`. With LANDLORD_REWRITE=1 the files are rewritten
// with what the engine printed, to be reviewed in the diff like any other change.
//
// The engine runs behind the daemon's durability machine (durability/machine.hpp) and a
// memory lease store, so a transcript shows the promise: a record handed to the store
// (`write`), the store's answer (`durable`, `refused`, `failed`), and only then the reply
// (`sent DHCPACK ...`, or `not sent ...`). Replies that need nothing durable (OFFER, NAK)
// print at once, without `sent`. By default the store answers `ok` at the end of each
// command; after `store manual` writes wait for `commit`.
//
//   discover client=N [requested=A] [relay=A] [broadcast]   DHCPDISCOVER
//   select client=N address=A [server=A] [relay=A]          DHCPREQUEST (SELECTING)
//   init-reboot client=N address=A [relay=A]                DHCPREQUEST (INIT-REBOOT)
//   renew client=N address=A / rebind client=N address=A    DHCPREQUEST with ciaddr
//   release client=N address=A / decline client=N address=A
//   inform client=N address=A
//   advance DURATION                                        time passes; reclaim runs
//   leases                                                  the lease table, by address
//   reconfigure pool=A-B                                    subnet 1's pool becomes A-B
//   store manual / store auto                               writes wait for `commit`, or not
//   commit ok                                               the oldest write is durable
//   commit fail                                             ... fails: nothing of it is written
//   commit stale                                            ... another server wrote a newer
//                                                           holder of each address first
//   crash                                                   engine, machine, unanswered writes lost
//   restart                                                 a new engine from the store's records
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "engine_harness.hpp"
#include "landlord/base/expected.hpp"
#include "landlord/config/values.hpp"
#include "landlord/durability/machine.hpp"
#include "landlord/store/memory_lease_store.hpp"

namespace landlord::engine::testing {
namespace {

struct Block {
  std::string command;
  std::string expected;
};

// A transcript's blocks, or what is wrong with its text (with the line number): a command
// without its "----", a "----" without a command, or an empty output would otherwise be merged
// into a neighbour or skipped, and a broken file would pass with fewer checks than it shows.
Expected<std::vector<Block>, std::string> parse_blocks(std::istream& in) {
  std::vector<Block> blocks;
  Block block;
  enum class Expecting { Command, Separator, Output } expecting = Expecting::Command;
  std::string line;
  int number = 0;
  const auto error = [&](const std::string& what) {
    return unexpected("line " + std::to_string(number) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++number;
    switch (expecting) {
      case Expecting::Command:
        if (line.empty() || line[0] == '#') continue;
        if (line == "----") return error("\"----\" without a command before it");
        block.command = line;
        expecting = Expecting::Separator;
        break;
      case Expecting::Separator:
        if (line != "----") return error("command \"" + block.command + "\" without its \"----\"");
        expecting = Expecting::Output;
        break;
      case Expecting::Output:
        if (!line.empty()) {
          block.expected += line + "\n";
          continue;
        }
        if (block.expected.empty()) return error("command \"" + block.command + "\" has no output");
        blocks.push_back(std::move(block));
        block = {};
        expecting = Expecting::Command;
        break;
    }
  }
  ++number;
  if (expecting == Expecting::Separator) {
    return error("command \"" + block.command + "\" without its \"----\" at the end");
  }
  if (expecting == Expecting::Output) {
    if (block.expected.empty()) return error("command \"" + block.command + "\" has no output");
    blocks.push_back(std::move(block));
  }
  return blocks;
}

Expected<std::vector<Block>, std::string> read_blocks(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) return unexpected("cannot read " + path.string());
  return parse_blocks(file);
}

Expected<std::vector<Block>, std::string> parse_text(const std::string& text) {
  std::istringstream in(text);
  return parse_blocks(in);
}

class Transcript {
 public:
  Transcript() { harness_.emplace(); }

  std::string run(const std::string& command_line) {
    std::istringstream words(command_line);
    std::string command;
    words >> command;
    std::map<std::string, std::string> arguments;
    std::string word;
    std::vector<std::string> bare;
    while (words >> word) {
      const auto equals = word.find('=');
      if (equals == std::string::npos) {
        bare.push_back(word);
      } else {
        arguments[word.substr(0, equals)] = word.substr(equals + 1);
      }
    }
    const auto address = [&](const std::string& name) { return *Ipv4::parse(arguments.at(name)); };
    const auto client = [&] {
      return static_cast<std::uint8_t>(std::stoi(arguments.at("client")));
    };

    if (command == "store") {
      manual_ = bare.at(0) == "manual";
      return manual_ ? "writes wait for commit\n" : "writes commit at once\n";
    }
    if (command == "commit") {
      std::string out = commit(bare.at(0));  // the store's answer, then what it releases
      return out + drive();
    }
    if (command == "crash") {
      std::string out = "crash: " + std::to_string(machine_.batches_in_flight()) +
                        " unanswered writes and " + std::to_string(machine_.backlog_size()) +
                        " records waiting for a retry lost\n";
      const TimePoint now = harness_->now;
      harness_.reset();
      machine_ = durability::Machine{};
      in_flight_.clear();
      down_at_ = now;
      return out;
    }
    if (command == "restart") {
      harness_.emplace(config_);
      harness_->now = *down_at_;
      down_at_.reset();
      std::size_t count = 0;
      (void)store_.load([&](lease::Lease&& record) {
        harness_->engine.restore(std::move(record));
        ++count;
      });
      return "restored " + std::to_string(count) + " records\n";
    }
    if (command == "advance") {
      const auto by = config::parse_duration(bare.at(0));
      EXPECT_TRUE(by.has_value()) << command_line;
      machine_.propose_reclaimed(harness_->advance(*by));
      const std::string out = drive();
      return out.empty() ? "nothing due\n" : out;
    }
    if (command == "reconfigure") {
      const std::string range = arguments.at("pool");
      const auto dash = range.find('-');
      config_.subnets[0].pools = {
          {*Ipv4::parse(range.substr(0, dash)), *Ipv4::parse(range.substr(dash + 1))}};
      harness_->engine.reconfigure(config_);
      return "ok\n";
    }
    if (command == "leases") {
      std::map<std::uint32_t, std::string> lines;
      harness_->engine.for_each_lease([&](const lease::Lease& record) {
        lines[record.address.to_uint()] = lease_line(record);
      });
      std::string out;
      for (const auto& [_, text] : lines) out += text;
      return out.empty() ? "no leases\n" : out;
    }

    wire::Message message;
    Ingress ingress = local_broadcast();
    if (command == "discover") {
      message = client_message(MessageType::Discover, client());
      if (arguments.contains("requested")) {
        message.options.set_ipv4(option::kRequestedAddress, address("requested"));
      }
    } else if (command == "select" || command == "init-reboot") {
      message = client_message(MessageType::Request, client());
      message.options.set_ipv4(option::kRequestedAddress, address("address"));
      if (command == "select") {
        message.options.set_ipv4(option::kServerId,
                                 arguments.contains("server") ? address("server") : kServerAddress);
      }
    } else if (command == "renew" || command == "rebind") {
      message = client_message(MessageType::Request, client());
      message.ciaddr = address("address");
      if (command == "renew") ingress = local_unicast(message.ciaddr);
    } else if (command == "release" || command == "inform") {
      message = client_message(command == "release" ? MessageType::Release : MessageType::Inform,
                               client());
      message.ciaddr = address("address");
      if (command == "release") message.options.set_ipv4(option::kServerId, kServerAddress);
      ingress = local_unicast(message.ciaddr);
    } else if (command == "decline") {
      message = client_message(MessageType::Decline, client());
      message.options.set_ipv4(option::kRequestedAddress, address("address"));
      message.options.set_ipv4(option::kServerId, kServerAddress);
    } else {
      ADD_FAILURE() << "unknown command: " << command_line;
      return {};
    }
    if (arguments.contains("relay")) {
      message.giaddr = address("relay");
      ingress = from_relay(message.giaddr);
    }
    if (std::find(bare.begin(), bare.end(), "broadcast") != bare.end()) {
      message.flags = wire::kBroadcastFlag;
    }
    engine::Outcome outcome = harness_->send(message, ingress);
    durability::Origin origin;
    origin.hardware = message.hardware_address();
    if (machine_.propose(outcome, origin)) return drive();
    return (outcome.reply ? reply_line(*outcome.reply)
                          : "silent: " + std::string(outcome.event.reason)) +
           "\n";
  }

 private:
  // The machine's Ready, as the daemon acts on it, until nothing more is ready; in auto mode
  // the store answers `ok` to every write.
  std::string drive() {
    std::string out;
    for (;;) {
      durability::Ready ready;
      machine_.ready(harness_->now, ready);
      for (const durability::Notice& notice : ready.notices) {
        if (notice.kind == durability::NoticeKind::StoreRecovered) {
          out += "store recovered: acknowledging again\n";
        }
      }
      for (const durability::Release& release : ready.released) out += release_line(release);
      for (durability::Batch& batch : ready.batches) {
        for (const lease::Lease& record : batch.records) {
          out += (batch.retry ? "retry " : "") + write_line(record);
        }
        in_flight_.push_back(std::move(batch));
      }
      if (!manual_ && !in_flight_.empty()) {
        while (!in_flight_.empty()) out += commit("ok");
        continue;
      }
      if (ready.empty()) return out;
    }
  }

  // The store's answer to the oldest write.
  std::string commit(const std::string& how) {
    if (in_flight_.empty()) return "no write waiting\n";
    durability::Batch batch = std::move(in_flight_.front());
    in_flight_.pop_front();
    std::string out;
    durability::CommitResult result = std::vector<store::WriteResult>{};
    if (how == "fail") {
      result = unexpected(store::StoreError{store::StoreError::Kind::Io, "disk I/O error"});
      out += "failed: disk I/O error\n";
    } else {
      if (how == "stale") {
        for (const lease::Lease& record : batch.records) {  // a newer holder, written elsewhere
          lease::Lease other = record;
          other.client = ClientKey::from({}, mac(0xee));
          other.hardware = mac(0xee);
          other.state = lease::LeaseState::Bound;
          ++other.fencing_token;
          (void)store_.commit(std::span(&other, 1));
        }
      } else {
        EXPECT_EQ(how, "ok");
      }
      result = store_.commit(batch.records);
      for (std::size_t i = 0; i < batch.records.size(); ++i) {
        const lease::Lease& record = batch.records[i];
        const bool written = (*result)[i] == store::WriteResult::Written;
        out += (written ? "durable " : "refused ") + record.address.to_string() +
               " token=" + std::to_string(record.fencing_token) +
               (written ? "" : ": the store holds a newer holder") + "\n";
      }
    }
    machine_.committed(batch.id, std::move(result), harness_->engine, harness_->now);
    return out;
  }

  std::string release_line(const durability::Release& release) const {
    if (release.reclaimed) return "";
    std::string what = release.reply != nullptr
                           ? reply_line(*release.reply)
                           : "silent: " + std::string(release.event.reason);
    switch (release.verdict) {
      case durability::Verdict::Send:
        return (release.reply != nullptr ? "sent " : "") + what + "\n";
      case durability::Verdict::StaleToken:
        return "not sent (stale fencing token): " + what + "\n";
      case durability::Verdict::Unavailable:
        return "not sent (store unavailable): " + what + "\n";
      case durability::Verdict::DurableRemainder:
        return "sent, cut to the durable lease (store unavailable): " + what + "\n";
    }
    return {};
  }

  std::string relative(TimePoint time) const {
    const Duration offset = time - kStart;
    return offset < Duration{0} ? "-" + config::format_duration(-offset)
                                : "+" + config::format_duration(offset);
  }

  std::string lease_line(const lease::Lease& record) const {
    std::string line = record.address.to_string() + " " + std::string(to_string(record.state));
    line += record.client.empty() ? " client=none" : " client=" + record.hardware.to_string();
    line += " token=" + std::to_string(record.fencing_token);
    if (record.state != lease::LeaseState::Offered)
      line += " ends=" + relative(record.expires_at());
    if (record.last_extension != lease::Extension::None) {
      line += " by=" + std::string(to_string(record.last_extension));
    }
    return line + "\n";
  }

  std::string write_line(const lease::Lease& record) const { return "write " + lease_line(record); }

  std::string reply_line(const Reply& reply_to) const {
    const wire::Message& reply = reply_to.message;
    std::string out = std::string(wire::to_string(*reply.type())) + " " + reply.yiaddr.to_string() +
                      " to " + std::string(to_string(reply_to.route)) + " " +
                      reply_to.destination.to_string() + ":" + std::to_string(reply_to.port);
    if (const auto lease_time = reply.options.get_u32(option::kLeaseTime)) {
      out += " lease=" + std::to_string(*lease_time) +
             "s t1=" + std::to_string(reply.options.get_u32(option::kRenewalTime).value_or(0)) +
             "s t2=" + std::to_string(reply.options.get_u32(option::kRebindingTime).value_or(0)) +
             "s";
    }
    if (reply.broadcast()) out += " broadcast-bit";
    if (const auto text = reply.options.get_text(option::kMessage)) {
      out += " \"" + std::string(*text) + "\"";
    }
    return out;
  }

  config::Config config_ = make_config();
  std::optional<Harness> harness_;  // none while crashed
  std::optional<TimePoint> down_at_;
  durability::Machine machine_;
  store::MemoryLeaseStore store_;
  std::deque<durability::Batch> in_flight_;  // handed to the store, not answered yet
  bool manual_ = false;
};

// The transcripts and the fewest blocks each must hold: a file emptied, cut short or renamed
// fails here instead of passing with nothing checked. The engine's live in
// tests/unit/engine/testdata (engine_test); the durability machine's promise, in
// tests/unit/durability/testdata, is run by this same file built into durability_test
// (LANDLORD_DURABILITY_TRANSCRIPTS).
#ifdef LANDLORD_DURABILITY_TRANSCRIPTS
const std::map<std::string, std::size_t> kTranscripts = {{"durability.txt", 37}};
#define LANDLORD_TRANSCRIPT_FILES "durability.txt"
constexpr const char* kTestdata = "tests/unit/durability/testdata";
#else
const std::map<std::string, std::size_t> kTranscripts = {
    {"dora.txt", 7},       {"renew_rebind_expire.txt", 10}, {"affinity.txt", 10},
    {"exhaustion.txt", 9}, {"decline.txt", 8},              {"fencing.txt", 16},
    {"relay.txt", 5}};
#define LANDLORD_TRANSCRIPT_FILES \
  "dora.txt", "renew_rebind_expire.txt", "affinity.txt", "exhaustion.txt", "decline.txt", "fencing.txt", "relay.txt"
constexpr const char* kTestdata = "tests/unit/engine/testdata";
#endif

std::filesystem::path testdata() { return std::filesystem::path(LANDLORD_SOURCE_DIR) / kTestdata; }

class GoldenTranscript : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTranscript, MatchesTheEngine) {
  const std::filesystem::path path = testdata() / GetParam();
  const bool rewrite = std::getenv("LANDLORD_REWRITE") != nullptr;
  const auto blocks = read_blocks(path);
  ASSERT_TRUE(blocks.has_value()) << GetParam() << ": " << blocks.error();
  ASSERT_GE(blocks->size(), kTranscripts.at(GetParam())) << GetParam() << " lost blocks";
  Transcript transcript;
  std::string rewritten;
  for (const Block& block : *blocks) {
    const std::string actual = transcript.run(block.command);
    if (!rewrite) {
      EXPECT_EQ(actual, block.expected) << GetParam() << ": " << block.command;
    }
    rewritten += block.command + "\n----\n" + actual + "\n";
  }
  if (rewrite) {
    // Keep the file's leading comment; everything else is regenerated.
    std::ifstream in(path);
    std::string header, line;
    while (std::getline(in, line) && line.rfind('#', 0) == 0) header += line + "\n";
    std::ofstream(path) << header << (header.empty() ? "" : "\n") << rewritten;
  }
}

INSTANTIATE_TEST_SUITE_P(Files, GoldenTranscript,
                         ::testing::Values(LANDLORD_TRANSCRIPT_FILES),
                         [](const auto& file) {
                           std::string name = file.param.substr(0, file.param.find('.'));
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Every file in testdata/ runs: one added or renamed without being listed is caught.
TEST(GoldenTranscripts, EveryFileInTestdataIsListed) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(testdata())) {
    if (entry.is_regular_file()) files.insert(entry.path().filename().string());
  }
  std::set<std::string> listed;
  for (const auto& [name, _] : kTranscripts) listed.insert(name);
  EXPECT_EQ(files, listed);
}

TEST(GoldenTranscripts, MalformedTextIsAnErrorWithItsLine) {
  EXPECT_EQ(parse_text("").value().size(), 0u);
  const auto good = parse_text("# c\n\ndiscover client=1\n----\nout\n\nleases\n----\nx\ny\n");
  ASSERT_TRUE(good.has_value()) << good.error();
  ASSERT_EQ(good->size(), 2u);
  EXPECT_EQ((*good)[1].command, "leases");
  EXPECT_EQ((*good)[1].expected, "x\ny\n");
  // A command whose "----" was lost is not merged into the next one.
  EXPECT_EQ(parse_text("discover client=1\nleases\n----\nout\n").error(),
            "line 2: command \"discover client=1\" without its \"----\"");
  EXPECT_EQ(parse_text("leases\n").error(),
            "line 2: command \"leases\" without its \"----\" at the end");
  EXPECT_EQ(parse_text("----\nout\n").error(), "line 1: \"----\" without a command before it");
  EXPECT_EQ(parse_text("leases\n----\n\n").error(), "line 3: command \"leases\" has no output");
  EXPECT_EQ(parse_text("leases\n----\n").error(), "line 3: command \"leases\" has no output");
  EXPECT_FALSE(read_blocks(testdata() / "no-such-file.txt").has_value());
}

}  // namespace
}  // namespace landlord::engine::testing
