#pragma once
// Every descriptor landlord holds is close-on-exec: a program it starts (events.exec) or anything
// that program leaves running must never inherit UDP 67 or a control listener, or a restarted
// landlord finds its port taken. Boost.Asio's open() and accept() do not set the flag (they
// call socket() and accept() without SOCK_CLOEXEC), so each such descriptor is marked here right
// after it is made; the hook is spawned on the same thread, so none escapes in between.
#include <fcntl.h>

namespace landlord {

// True once `fd` is close-on-exec.
inline bool set_close_on_exec(int fd) {
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0;
}

}  // namespace landlord
