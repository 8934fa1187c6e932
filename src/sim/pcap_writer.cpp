#include <pcap/pcap.h>
#include <sys/time.h>

#include "landlord/sim/transport.hpp"

namespace landlord::sim {

namespace {

class LibpcapWriter final : public PcapWriter {
 public:
  LibpcapWriter(pcap_t* handle, pcap_dumper_t* dumper) : handle_(handle), dumper_(dumper) {}
  ~LibpcapWriter() override {
    pcap_dump_close(dumper_);
    pcap_close(handle_);
  }
  LibpcapWriter(const LibpcapWriter&) = delete;
  LibpcapWriter& operator=(const LibpcapWriter&) = delete;

  void write(std::span<const std::uint8_t> frame) override {
    pcap_pkthdr header{};
    ::gettimeofday(&header.ts, nullptr);  // capture timestamps are wall time by nature
    header.caplen = static_cast<bpf_u_int32>(frame.size());
    header.len = header.caplen;
    pcap_dump(reinterpret_cast<u_char*>(dumper_), &header, frame.data());
  }

 private:
  pcap_t* handle_;
  pcap_dumper_t* dumper_;
};

}  // namespace

Expected<std::unique_ptr<PcapWriter>, std::string> PcapWriter::open(const std::string& path) {
  pcap_t* handle = pcap_open_dead(DLT_EN10MB, 65535);
  if (!handle) return unexpected(std::string("pcap_open_dead failed"));
  pcap_dumper_t* dumper = pcap_dump_open(handle, path.c_str());
  if (!dumper) {
    std::string error = pcap_geterr(handle);
    pcap_close(handle);
    return unexpected("pcap " + path + ": " + error);
  }
  return std::unique_ptr<PcapWriter>(new LibpcapWriter(handle, dumper));
}

}  // namespace landlord::sim
