#pragma once
// Shared by the store tests: sample records, a field-by-field comparison, a scratch directory,
// an immutable file.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "landlord/lease/lease.hpp"
#include "landlord/store/lease_store.hpp"

namespace landlord::store::testing {

// A bound Ethernet lease in 198.18.0.0/15; `index` varies address, MAC and client id.
inline lease::Lease bound_lease(std::uint32_t index, lease::FencingToken token = 1) {
  lease::Lease record;
  record.address = Ipv4{Ipv4{198, 18, 0, 0}.to_uint() + index};
  const auto byte = [&](int shift) { return static_cast<std::uint8_t>(index >> shift); };
  const std::uint8_t mac[] = {0x02, 0x00, byte(24), byte(16), byte(8), byte(0)};
  record.hardware = HardwareAddress{HardwareAddress::kEthernet, mac};
  if (index % 2 == 0) {
    const std::uint8_t id[] = {0x01, 0xaa, 0xbb, static_cast<std::uint8_t>(index)};
    record.client_id = ClientId{id};
  }
  record.client = ClientKey::from(record.client_id, record.hardware);
  record.hostname = index % 3 == 0 ? "" : "host-" + std::to_string(index);
  record.classes = index % 4 == 1 ? "uefi,floor-2" : "";
  record.state = lease::LeaseState::Bound;
  record.subnet_id = 1 + index % 4;
  record.granted_at = time_from_unix_ms(1'790'000'000'123 + index);
  record.lease_time = std::chrono::hours{1};
  record.renew_time = std::chrono::minutes{30};
  record.rebind_time = std::chrono::minutes{52} + std::chrono::seconds{30};
  record.fencing_token = token;
  return record;
}

inline ::testing::AssertionResult same_lease(const lease::Lease& expected,
                                             const lease::Lease& actual) {
  std::string differences;
  const auto field = [&](bool equal, const char* name) {
    if (!equal) differences += std::string(differences.empty() ? "" : ", ") + name;
  };
  field(expected.address == actual.address, "address");
  field(expected.client == actual.client, "client");
  field(expected.hardware == actual.hardware, "hardware");
  field(expected.client_id == actual.client_id, "client_id");
  field(expected.hostname == actual.hostname, "hostname");
  field(expected.classes == actual.classes, "classes");
  field(expected.fqdn == actual.fqdn, "fqdn");
  field(expected.dns_sides == actual.dns_sides, "dns_sides");
  field(expected.dns_state == actual.dns_state, "dns_state");
  field(expected.relay_agent_info == actual.relay_agent_info, "relay_agent_info");
  field(expected.state == actual.state, "state");
  field(expected.last_extension == actual.last_extension, "last_extension");
  field(expected.subnet_id == actual.subnet_id, "subnet_id");
  field(expected.granted_at == actual.granted_at, "granted_at");
  field(expected.lease_time == actual.lease_time, "lease_time");
  field(expected.renew_time == actual.renew_time, "renew_time");
  field(expected.rebind_time == actual.rebind_time, "rebind_time");
  field(expected.fencing_token == actual.fencing_token, "fencing_token");
  if (differences.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "lease " << expected.address.to_string() << " differs in: " << differences;
}

inline std::vector<lease::Lease> load_all(LeaseStore& store) {
  std::vector<lease::Lease> records;
  auto loaded = store.load([&](lease::Lease&& record) { records.push_back(std::move(record)); });
  EXPECT_TRUE(loaded.has_value()) << (loaded ? "" : loaded.error().message);
  return records;
}

// A fresh directory under /tmp, removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "landlord-store-XXXXXX").string();
    LANDLORD_ASSERT(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `chattr +i` on a file: root cannot write it either, through descriptors already open. Needs
// CAP_LINUX_IMMUTABLE and a file system that keeps the flag (ext4, xfs, tmpfs...).
class ImmutableFile {
 public:
  explicit ImmutableFile(std::filesystem::path file) : file_(std::move(file)) {
    set_ = change(true);
    if (!set_) reason_ = "cannot make " + file_.string() + " immutable: " + std::strerror(errno);
  }
  ~ImmutableFile() {
    if (set_) change(false);
  }
  ImmutableFile(const ImmutableFile&) = delete;
  ImmutableFile& operator=(const ImmutableFile&) = delete;
  bool set() const { return set_; }
  const std::string& reason() const { return reason_; }
  void lift() {
    if (set_ && change(false)) set_ = false;
  }

 private:
  bool change(bool immutable) const {
    const int descriptor = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return false;
    int flags = 0;
    bool changed = ::ioctl(descriptor, FS_IOC_GETFLAGS, &flags) == 0;
    if (changed) {
      flags = immutable ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
      changed = ::ioctl(descriptor, FS_IOC_SETFLAGS, &flags) == 0;
    }
    const int saved = errno;
    ::close(descriptor);
    errno = saved;
    return changed;
  }

  std::filesystem::path file_;
  bool set_ = false;
  std::string reason_;
};

}  // namespace landlord::store::testing
