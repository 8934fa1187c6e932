// A record change must go through Ledger::write (or hold, end_hold, learn), which sets its
// token. Built three ways: as written here into engine_pieces_test, and by the tests
// engine_ledger_bypass_1 and _2 with LANDLORD_BYPASS set, which pass only when the build fails
// with the error named in tests/unit/engine/CMakeLists.txt: a bypass does not compile.
#include "ledger.hpp"

namespace landlord::engine::testing {

void change_through_the_ledger(Ledger& ledger, lease::Lease record) {
#if defined(LANDLORD_BYPASS) && LANDLORD_BYPASS == 1
  ledger.table().put(std::move(record));  // the table, as anyone outside the Ledger sees it: const
#elif defined(LANDLORD_BYPASS) && LANDLORD_BYPASS == 2
  ledger.put(std::move(record));  // the Ledger's own put, which sets no token: private
#else
  ledger.write(record, Token::Follows);
#endif
}

}  // namespace landlord::engine::testing
