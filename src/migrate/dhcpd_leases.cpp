// ISC dhcpd's dhcpd.leases: a journal of `lease ADDRESS { ... }` blocks, the last block for an
// address being its current state. Inside: `ends W YYYY/MM/DD HH:MM:SS;` (UTC), or `ends
// epoch N;` (db-time-format local), or `ends never;`; `binding state active;`; `hardware
// ethernet MAC;`; `uid "..."` (octal escapes) or `uid 01:02:...;`; `client-hostname "...";`.
// Other statements of a lease block are skipped; so are the other top-level statements dhcpd
// writes (host, group, class, failover, server-duid, ...).
//
// Tokens are collected one top-level statement at a time. dhcpd writes every top-level
// statement at the start of a line, and a lease block's statements one to a line, so a line
// starting `lease ADDRESS {` begins a new statement whatever came before: a stray line or a
// block cut short by a crash is a failure with its line, and the reading resynchronises there
// (dhcpd itself logs "Corrupt lease file" and reads on). A word dhcpd never writes at the top
// level is a failure.
#include <array>

#include "foreign_time.hpp"
#include "format_reader.hpp"

namespace landlord::migrate {
namespace {

struct Token {
  enum class Kind : std::uint8_t { Word, String, Unterminated, Open, Close, End } kind;
  std::string text;
  int line;
};

constexpr std::array<std::string_view, 8> kSkippedBlocks = {
    "host", "group", "class", "subclass", "failover", "ia-na", "ia-ta", "ia-pd"};
constexpr std::array<std::string_view, 2> kSkippedStatements = {"server-duid", "authoring-byte-order"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& names, std::string_view word) {
  for (const std::string_view name : names) {
    if (name == word) return true;
  }
  return false;
}

// The tokens of one line. A string ends on its line: dhcpd writes a newline in one as \012.
std::vector<Token> tokenize(int number, std::string_view text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      break;
    } else if (c == '{' || c == '}' || c == ';') {
      tokens.push_back({c == '{' ? Token::Kind::Open : c == '}' ? Token::Kind::Close : Token::Kind::End,
                        std::string{c}, number});
      ++i;
    } else if (c == '"') {
      std::string value;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] != '\\' || i + 1 >= text.size()) {
          value += text[i];
          continue;
        }
        // \nnn octal, or an escaped character.
        std::size_t digits = 0;
        int code = 0;
        while (digits < 3 && i + 1 + digits < text.size() && text[i + 1 + digits] >= '0' &&
               text[i + 1 + digits] <= '7') {
          code = code * 8 + (text[i + 1 + digits] - '0');
          ++digits;
        }
        if (digits > 0) {
          value += static_cast<char>(code);
          i += digits;
        } else {
          value += text[++i];
        }
      }
      const bool closed = i < text.size();
      ++i;  // the closing quote
      tokens.push_back({closed ? Token::Kind::String : Token::Kind::Unterminated, std::move(value), number});
    } else {
      const std::size_t start = i;
      while (i < text.size() && std::string_view{" \t\r{};\"#"}.find(text[i]) == std::string_view::npos) ++i;
      tokens.push_back({Token::Kind::Word, std::string{text.substr(start, i - start)}, number});
    }
  }
  return tokens;
}

bool starts_lease_block(const std::vector<Token>& tokens) {
  return tokens.size() >= 3 && tokens[0].kind == Token::Kind::Word && tokens[0].text == "lease" &&
         tokens[1].kind == Token::Kind::Word && tokens[2].kind == Token::Kind::Open;
}

class DhcpdReader final : public FormatReader {
 public:
  using FormatReader::FormatReader;

  void line(int number, std::string_view text) override {
    std::vector<Token> tokens = tokenize(number, text);
    if (tokens.empty()) return;
    if (starts_lease_block(tokens)) {
      if (!statement_.empty()) cut_short(number);
      resync_ = false;
    }
    if (resync_) return;
    if (statement_.empty()) first_text_ = shown(text, kMaxShownBytes);
    for (Token& token : tokens) {
      bytes_ += token.text.size() + 1;
      const Token::Kind kind = token.kind;
      statement_.push_back(std::move(token));
      if (kind == Token::Kind::Open) ++depth_;
      const bool closes = kind == Token::Kind::Close && --depth_ <= 0;
      if (closes || (kind == Token::Kind::End && depth_ == 0)) complete();
    }
    if (bytes_ > kMaxStatementBytes) {
      fail(statement_.front().line, first_text_,
           "statement longer than " + std::to_string(kMaxStatementBytes) + " bytes");
      drop();
    }
  }

  void overlong(int number) override {
    FormatReader::overlong(number);
    drop();  // what it belonged to is incomplete
  }

  void end() override {
    if (!statement_.empty()) cut_short(0);
  }

 private:
  // The statement is incomplete: lost, and nothing more is read until the next lease block.
  void drop() {
    statement_.clear();
    depth_ = 0;
    bytes_ = 0;
    resync_ = true;
  }

  // The statement under way is cut off by a new lease block on line `next` (0: the file's end).
  void cut_short(int next) {
    const Token& first = statement_.front();
    const std::string where = next == 0 ? "the end of the file" : "line " + std::to_string(next);
    if (starts_lease_block(statement_)) {
      fail(first.line, first_text_, "the block of lease " + quoted(statement_[1].text) +
                                        " is not closed before " + where);
    } else {
      fail(first.line, first_text_, "not a dhcpd.leases statement: " + quoted(first.text) +
                                        " (nothing that dhcpd writes, up to " + where + ")");
    }
    drop();
    resync_ = false;
  }

  void complete() {
    std::vector<Token> statement = std::move(statement_);
    statement_.clear();
    depth_ = 0;
    bytes_ = 0;
    const Token& first = statement.front();
    if (first.kind == Token::Kind::Close) {
      fail(first.line, first_text_, "a '}' with no block open");
    } else if (starts_lease_block(statement)) {
      read_lease(statement);
    } else if (first.kind == Token::Kind::Word && one_of(kSkippedBlocks, first.text)) {
      out_.ignored();
    } else if (first.kind != Token::Kind::End &&
               !(first.kind == Token::Kind::Word && one_of(kSkippedStatements, first.text))) {
      fail(first.line, first_text_, "not a dhcpd.leases statement: " + quoted(first.text));
    }
  }

  void read_lease(const std::vector<Token>& tokens) {
    ForeignLease lease;
    lease.line = tokens[0].line;
    lease.text = first_text_;
    lease.state = "active";  // files older than "binding state" have only active leases
    std::string problem;
    const auto address = Ipv4::parse(tokens[1].text);
    if (!address) problem = "bad address " + quoted(tokens[1].text);
    if (address) lease.address = *address;
    // Statements between the block's '{' (tokens[2]) and its '}' (the last token); nested
    // blocks (on commit { ... }) are skipped.
    std::size_t i = 3;
    const std::size_t close = tokens.size() - 1;
    while (i < close && problem.empty()) {
      std::vector<const Token*> statement;
      while (i < close) {
        const Token& token = tokens[i++];
        if (token.kind == Token::Kind::End) break;
        if (token.kind == Token::Kind::Open) {
          for (int depth = 1; i < close && depth > 0; ++i) {
            depth += tokens[i].kind == Token::Kind::Open ? 1 : tokens[i].kind == Token::Kind::Close ? -1 : 0;
          }
          break;
        }
        statement.push_back(&token);
      }
      if (!statement.empty() && statement.front()->line != statement.back()->line) {
        problem = "no ';' at the end of line " + std::to_string(statement.front()->line);
      } else {
        problem = apply(statement, lease);
      }
    }
    if (!problem.empty()) return fail(lease.line, lease.text, problem);
    lease.active = lease.state == "active";
    out_.lease(std::move(lease));
  }

  // One statement of a lease block; a problem, or "".
  static std::string apply(const std::vector<const Token*>& words, ForeignLease& lease) {
    if (words.empty()) return {};
    for (const Token* token : words) {
      if (token->kind == Token::Kind::Unterminated) return "a string is not closed on line " + std::to_string(token->line);
    }
    const auto word = [&](std::size_t i) -> const std::string& {
      static const std::string none;
      return i < words.size() ? words[i]->text : none;
    };
    const std::string& name = word(0);
    if (name == "ends") {
      if (word(1) == "never") {
        lease.expires.reset();
      } else if (word(1) == "epoch") {
        const auto seconds = parse_integer(word(2));
        lease.expires = seconds ? time_from_unix_seconds(*seconds) : std::nullopt;
        if (!lease.expires) return "bad 'ends epoch " + shown(word(2)) + "' (Unix seconds, 1970 to 9999)";
      } else if (auto time = time_from_utc(word(2), word(3))) {
        lease.expires = time;
      } else {
        return "bad 'ends " + shown(word(1)) + " " + shown(word(2)) + " " + shown(word(3)) +
               "' (W YYYY/MM/DD HH:MM:SS, 1970 to 9999)";
      }
    } else if (name == "binding" && word(1) == "state") {
      lease.state = word(2);
    } else if (name == "abandoned") {
      lease.state = "abandoned";
    } else if (name == "hardware") {
      if (word(1) != "ethernet") return "hardware type " + quoted(word(1)) + " is not supported (ethernet only)";
      const auto hardware = HardwareAddress::parse(word(2));
      if (!hardware) return "bad hardware address " + quoted(word(2));
      lease.hardware = *hardware;
    } else if (name == "uid" && words.size() > 1) {
      if (words[1]->kind == Token::Kind::String) {
        const std::string& bytes = words[1]->text;
        if (bytes.empty() || bytes.size() > 255) return "bad uid length";
        lease.client_id = ClientId{std::span{reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}};
      } else if (auto id = ClientId::parse(word(1))) {
        lease.client_id = *id;
      } else {
        return "bad uid " + quoted(word(1));
      }
    } else if (name == "client-hostname" && words.size() > 1) {
      lease.hostname = word(1);
    } else if (name == "set" && words.size() > 3 && word(1) == "ddns-fwd-name" && word(2) == "=") {
      // The name dhcpd put in DNS (A/TXT): kept so landlord removes it when the lease ends.
      std::string fqdn = word(3);
      if (!fqdn.empty() && fqdn.back() == '.') fqdn.pop_back();
      for (char& c : fqdn) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      if (!fqdn.empty() && fqdn.size() <= 253) {
        lease.fqdn = std::move(fqdn);
        lease.dns_sides.forward = true;
      }
    } else if (name == "set" && words.size() > 3 && word(1) == "ddns-rev-name" && word(2) == "=") {
      lease.dns_sides.reverse = true;  // its PTR names the forward name
    }
    return {};
  }

  std::vector<Token> statement_;  // the top-level statement being read
  std::string first_text_;        // its first line, for a report
  int depth_ = 0;
  std::size_t bytes_ = 0;
  bool resync_ = false;  // after a lost statement: nothing is read until a line starts a lease block
};

}  // namespace

std::unique_ptr<FormatReader> dhcpd_reader(LeaseVisitor& out) { return std::make_unique<DhcpdReader>(out); }

}  // namespace landlord::migrate
