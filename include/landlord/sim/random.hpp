#pragma once
// A small seeded generator (SplitMix64): every random choice in the simulator comes from one
// of these, so a run replays exactly from --seed. std::mt19937 is larger than a client.
#include <cstdint>

namespace landlord::sim {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint32_t next_u32() { return static_cast<std::uint32_t>(next() >> 32); }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double probability) { return probability > 0 && unit() < probability; }
  // Uniform in [low, high].
  std::int64_t between(std::int64_t low, std::int64_t high) {
    if (high <= low) return low;
    return low + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(high - low + 1));
  }

 private:
  std::uint64_t state_;
};

// Mixes a run seed with an index so each client gets an independent stream.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t index) {
  Random mix(seed ^ (index * 0xd1b54a32d192ed03ull));
  return mix.next();
}

}  // namespace landlord::sim
