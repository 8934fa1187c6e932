// Writes the UDP payload of each frame of a capture as one seed file for the fuzzer:
//   wire_write_corpus tests/data/captures/real-clients.pcap tests/fuzz/corpus
// Files are named <capture>-<frame number>, so regenerating gives the same names.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include "../../support/pcap_reader.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <capture.pcap> <corpus directory>\n", argv[0]);
    return 2;
  }
  try {
    const std::filesystem::path capture{argv[1]};
    const std::filesystem::path directory{argv[2]};
    std::filesystem::create_directories(directory);
    for (const auto& datagram : landlord::test::read_udp_datagrams(capture.string())) {
      char number[16];
      std::snprintf(number, sizeof number, "%02zu", datagram.frame_number);
      const auto path = directory / (capture.stem().string() + "-" + number);
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(datagram.payload.data()),
                static_cast<std::streamsize>(datagram.payload.size()));
      if (!out) throw std::runtime_error("cannot write " + path.string());
      std::printf("%s (%zu bytes)\n", path.c_str(), datagram.payload.size());
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
