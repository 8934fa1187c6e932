#include "landlord/server/privileges.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <cap-ng.h>
#include <fmt/format.h>

namespace landlord::server {
namespace {

struct Account {
  uid_t uid = 0;
  gid_t gid = 0;
};

Expected<Account, std::string> look_up(const std::string& name) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  const int error = ::getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    return unexpected(fmt::format("server.user '{}': {}", name,
                                  error != 0 ? std::strerror(error) : "no such user"));
  }
  return Account{entry.pw_uid, entry.pw_gid};
}

// The control socket's directory (/run/landlord) may not exist outside systemd, and only root
// can make it in /run: made now, owned by the user, before we stop being root.
Expected<void, std::string> prepare_control_directory(const config::Config& config,
                                                      const Account& account) {
  if (!config.control.enabled) return {};
  const std::filesystem::path directory = std::filesystem::path{config.control.socket}.parent_path();
  std::error_code error;
  if (std::filesystem::exists(directory, error)) return {};
  std::filesystem::create_directories(directory, error);
  if (error || ::chown(directory.c_str(), account.uid, account.gid) != 0 ||
      ::chmod(directory.c_str(), 0750) != 0) {
    return unexpected(fmt::format("cannot create {} for server.user: {}", directory.string(),
                                  error ? error.message() : std::strerror(errno)));
  }
  return {};
}

// libcap-ng's state (per thread: this runs before the store's threads exist, which inherit
// the result): CAP_NET_RAW in the effective and permitted sets and the bounding set (if we
// have it), nothing else.
void keep_only_net_raw(bool had_net_raw) {
  capng_clear(CAPNG_SELECT_BOTH);
  if (had_net_raw) {
    capng_update(CAPNG_ADD,
                 static_cast<capng_type_t>(CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET),
                 CAP_NET_RAW);
  }
}

}  // namespace

Expected<std::string, std::string> drop_privileges(const config::Config& config,
                                                   const PrivilegeOptions& options) {
  const std::optional<std::string>& user = config.server.user;
  capng_get_caps_process();
  const bool had_net_raw = capng_have_capability(CAPNG_PERMITTED, CAP_NET_RAW) != 0;
  if (::geteuid() == 0) {
    if (!user) {
      if (options.allow_root) return std::string{"running as root (--allow-root)"};
      return unexpected(std::string{
          "refusing to run as root: set server.user (landlord binds its sockets, then becomes "
          "that user keeping only CAP_NET_RAW) or pass --allow-root"});
    }
    const auto account = look_up(*user);
    if (!account) return unexpected(account.error());
    if (auto prepared = prepare_control_directory(config, *account); !prepared) {
      return unexpected(prepared.error());
    }
    keep_only_net_raw(had_net_raw);
    // The bounding set first, while we still have CAP_SETPCAP; then setresgid, initgroups and
    // setresuid keeping the capabilities above (and nothing else).
    if (capng_apply(CAPNG_SELECT_BOUNDS) != 0) {
      return unexpected(std::string{"cannot drop the capability bounding set"});
    }
    const int result = capng_change_id(static_cast<int>(account->uid), static_cast<int>(account->gid),
                                       CAPNG_INIT_SUPP_GRP);
    if (result != 0) {
      return unexpected(fmt::format("cannot become server.user '{}' (capng_change_id: {})", *user, result));
    }
    return fmt::format("running as {} (uid {}, gid {}) with {}", *user, account->uid, account->gid,
                       had_net_raw ? "CAP_NET_RAW only" : "no capabilities");
  }
  if (user) {
    const auto account = look_up(*user);
    if (!account) return unexpected(account.error());
    if (account->uid != ::geteuid()) {
      return unexpected(fmt::format(
          "server.user is '{}' (uid {}) but landlord runs as uid {}: only root can switch users",
          *user, account->uid, ::geteuid()));
    }
  }
  // Not root (systemd's User=): CAP_NET_BIND_SERVICE has done its job once port 67 is bound.
  if (capng_have_capabilities(CAPNG_SELECT_CAPS) != CAPNG_NONE) {
    keep_only_net_raw(had_net_raw);
    if (capng_apply(CAPNG_SELECT_CAPS) != 0) {  // the bounding set needs CAP_SETPCAP: left as is
      return unexpected(std::string{"cannot drop capabilities (capng_apply failed)"});
    }
  }
  return fmt::format("running as uid {} with {}", ::geteuid(),
                     had_net_raw ? "CAP_NET_RAW only" : "no capabilities");
}

}  // namespace landlord::server
