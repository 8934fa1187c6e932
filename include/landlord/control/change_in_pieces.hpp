#pragma once
// Large changes of the control API (lease4-wipe, leases-reclaim) made in pieces so that they
// never starve packet handling nor fill the store's commit queue: one piece per turn of the
// event loop, each piece at most kChangePiece records and committed as soon as it is made, at
// most kPiecesAtTheStore pieces at the store at once (submitted, not answered yet: the next
// piece is made once one of them is answered), and `finish` called once, when no piece is
// left to make and every piece made is answered. The store's commit queue takes 16,384
// records (store::CommitQueueOptions::capacity_records) and refuses beyond, for DHCP's
// records too; a piece is made far faster than it is committed, so without the bound a large
// change filled the queue and a piece was refused.
//
// A failing store (at the start of a piece: Daemon::counters().store_healthy false), the
// caller's own condition failing at the start of a piece (`may_go_on`: leases-reclaim's clock
// check, Daemon::may_end_leases) or a piece whose commit fails stops it: no further piece is
// made, what was changed stays changed (and is written when the store recovers: the durability
// machine keeps it), and `finish` is told the first reason, once every piece made is answered.
#include <cstddef>
#include <functional>
#include <string>

#include "landlord/control/daemon.hpp"

namespace landlord::control {

// Records per piece at most: each is a change to the table's indexes and a record for the
// store, dearer than reading a record, so fewer than a scan's piece (kScanPiece).
inline constexpr std::size_t kChangePiece = 1024;
inline constexpr std::size_t kPiecesAtTheStore = 4;

struct PiecesDone {
  std::size_t changed = 0;  // records handed to the store
  std::size_t durable = 0;  // ... and answered as written
  std::string error;        // the first failure; empty when every piece was written
};

// Makes the next piece: the engine's changes (at most `most` records) appended to
// `change.mutations`. Returns true when nothing is left after this piece.
using MakePiece = std::function<bool(engine::Outcome& change, std::size_t most)>;

// Whether the next piece may be made, or why not (checked after the store's health).
using MayGoOn = std::function<Expected<void, std::string>()>;

// Starts making pieces in the next turn of the event loop; `event` is every piece's event (what
// the daemon publishes for each record once durable). `finish` runs on the event loop.
void change_in_pieces(Daemon& daemon, engine::Event event, MakePiece make,
                      std::function<void(const PiecesDone&)> finish, MayGoOn may_go_on = {});

}  // namespace landlord::control
