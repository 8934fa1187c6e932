#pragma once
// What the lease store says of itself beside its commits, in the log: failed WAL checkpoints
// (at most one line per interval, each count logged within one interval of being counted) and a
// store opened again after its file system turned read-only. The store calls in when it counts
// something (LeaseStore::on_health_change, from its own threads); the lines are written on the
// event loop — also for a checkpoint that fails after the last commit of a quiet period, which a
// check after each commit would leave unlogged until the next one.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "landlord/store/lease_store.hpp"

namespace landlord::server {

class StoreWatch {
 public:
  // Listens to `store` from here on. `store` must outlive the watch; destroy the watch only
  // when `io` no longer runs (its handlers refer to the watch).
  StoreWatch(boost::asio::io_context& io, store::LeaseStore& store, std::string store_name,
             std::chrono::milliseconds interval = std::chrono::seconds{5});
  ~StoreWatch();  // stops the store's calls
  StoreWatch(const StoreWatch&) = delete;
  StoreWatch& operator=(const StoreWatch&) = delete;

  // Logs what the store counted since the last line (on the event loop's thread).
  void check();

 private:
  boost::asio::io_context& io_;
  store::LeaseStore& store_;
  const std::string store_name_;
  const std::chrono::milliseconds interval_;
  boost::asio::steady_timer timer_;  // the end of the interval, when a count waits for it
  bool waiting_ = false;
  std::optional<std::chrono::steady_clock::time_point> logged_at_;
  std::uint64_t logged_failures_ = 0;  // the count in the last line
  std::uint64_t reopened_ = 0;
};

}  // namespace landlord::server
