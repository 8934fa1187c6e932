#pragma once
// The daemon's log on stderr. When stderr is the journal (JOURNAL_STREAM names its device and
// inode, systemd.exec(5)), each line starts with its syslog priority ("<6>") and carries no
// timestamp of its own: journald keeps both. Otherwise: an ISO 8601 timestamp with the time
// zone ("2026-12-01T21:40:00.123+00:00 info ...").
#include <string>

namespace landlord::server {

// True when JOURNAL_STREAM ("DEVICE:INODE") is the file stderr is connected to.
bool stderr_is_journal();

// Makes the "landlord" logger on stderr the default, at `level` (trace ... off).
void setup_logging(const std::string& level);

}  // namespace landlord::server
