#include "landlord/sim/transport.hpp"

namespace landlord::sim {

Expected<std::unique_ptr<PcapWriter>, std::string> PcapWriter::open(const std::string&) {
  return unexpected(std::string("--pcap needs a build with libpcap (LANDLORD_PCAP=ON)"));
}

}  // namespace landlord::sim
