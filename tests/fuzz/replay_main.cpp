// Runs a libFuzzer target's body over every file of a corpus directory, without libFuzzer: the
// normal (g++) build checks the committed corpus on every test run. A target that accepts
// everything as "handled" would pass on its own, so seeds named valid-* must also pass the
// target's own positive check (landlord_fuzz_valid_seed), and the corpus must not be empty.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
bool landlord_fuzz_valid_seed(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <corpus directory> <fewest inputs>\n", argv[0]);
    return 2;
  }
  const std::size_t fewest = std::strtoul(argv[2], nullptr, 10);
  std::size_t inputs = 0, valid = 0, failures = 0;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    if (!entry.is_regular_file()) continue;
    std::ifstream file(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(file), {}};
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());  // aborts on a broken invariant
    ++inputs;
    if (entry.path().filename().string().rfind("valid-", 0) != 0) continue;
    ++valid;
    if (!landlord_fuzz_valid_seed(bytes.data(), bytes.size())) {
      std::fprintf(stderr, "FAIL: seed %s should pass the target's positive check\n",
                   entry.path().filename().c_str());
      ++failures;
    }
  }
  std::printf("%zu inputs replayed from %s, %zu valid-* seeds checked\n", inputs, argv[1], valid);
  if (inputs < fewest || valid == 0) {
    std::fprintf(stderr, "FAIL: %zu inputs (want at least %zu), %zu valid-* seeds (want some)\n",
                 inputs, fewest, valid);
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
