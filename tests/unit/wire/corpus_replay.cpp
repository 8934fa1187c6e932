// Runs the libFuzzer target's body over every file of a corpus directory, without libFuzzer:
// the normal (g++) build checks the seed corpus and past crashes on every test run.
// The fuzz body accepts a parse failure as a valid outcome, so on its own it would pass with a
// parser that rejects everything: the seeds taken from the real-clients capture (real-clients-NN,
// 17 frames of dhclient, udhcpc and dhcpcd talking to Kea) must also parse, each to a message
// with a DHCP message type.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "landlord/wire/message.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

constexpr std::size_t kCaptureSeeds = 17;  // frames in tests/data/captures/real-clients.pcap
constexpr std::size_t kFewestInputs = 20;  // the capture's seeds plus the fuzzer-found ones

bool is_capture_seed(const std::filesystem::path& path) {
  return path.filename().string().rfind("real-clients-", 0) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  std::size_t inputs = 0, capture_seeds = 0, failures = 0;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    if (!entry.is_regular_file()) continue;
    std::ifstream file(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(file), {}};
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());  // aborts on a broken invariant
    ++inputs;
    if (!is_capture_seed(entry.path())) continue;
    ++capture_seeds;
    const auto message = landlord::wire::parse(std::span{bytes.data(), bytes.size()});
    if (!message) {
      std::fprintf(stderr, "FAIL: capture seed %s (%zu bytes) does not parse\n",
                   entry.path().filename().c_str(), bytes.size());
      ++failures;
    } else if (!message->type()) {
      std::fprintf(stderr, "FAIL: capture seed %s parses without a message type\n",
                   entry.path().filename().c_str());
      ++failures;
    }
  }
  std::printf("%zu inputs replayed from %s, %zu capture seeds parsed\n", inputs, argv[1],
              capture_seeds - failures);
  if (capture_seeds != kCaptureSeeds) {
    std::fprintf(stderr, "FAIL: %zu capture seeds, want %zu\n", capture_seeds, kCaptureSeeds);
    return 1;
  }
  if (inputs < kFewestInputs) {
    std::fprintf(stderr, "FAIL: %zu inputs, want at least %zu\n", inputs, kFewestInputs);
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
