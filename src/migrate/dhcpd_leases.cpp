// ISC dhcpd's dhcpd.leases: a journal of `lease ADDRESS { ... }` blocks, the last block for an
// address being its current state. Inside: `ends W YYYY/MM/DD HH:MM:SS;` (UTC), or `ends
// epoch N;` (db-time-format local), or `ends never;`; `binding state active;`; `hardware
// ethernet MAC;`; `uid "..."` (octal escapes) or `uid 01:02:...;`; `client-hostname "...";`.
// Other statements and blocks (host, failover peer, server-duid, on commit {...}) are skipped.
#include <charconv>
#include <ctime>

#include "landlord/migrate/lease_file.hpp"

namespace landlord::migrate {
namespace {

struct Token {
  enum class Kind : std::uint8_t { Word, String, Open, Close, End } kind;
  std::string text;
  int line;
};

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '{' || c == '}' || c == ';') {
      tokens.push_back({c == '{' ? Token::Kind::Open : c == '}' ? Token::Kind::Close : Token::Kind::End,
                        std::string{c}, line});
      ++i;
    } else if (c == '"') {
      std::string value;
      const int start = line;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\n') ++line;
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
      ++i;  // the closing quote
      tokens.push_back({Token::Kind::String, std::move(value), start});
    } else {
      const std::size_t start = i;
      while (i < text.size() && std::string_view{" \t\r\n{};\"#"}.find(text[i]) == std::string_view::npos) ++i;
      tokens.push_back({Token::Kind::Word, std::string{text.substr(start, i - start)}, line});
    }
  }
  return tokens;
}

std::optional<TimePoint> parse_utc(const std::string& date, const std::string& time) {
  std::tm parts{};
  if (std::sscanf(date.c_str(), "%d/%d/%d", &parts.tm_year, &parts.tm_mon, &parts.tm_mday) != 3 ||
      std::sscanf(time.c_str(), "%d:%d:%d", &parts.tm_hour, &parts.tm_min, &parts.tm_sec) != 3) {
    return std::nullopt;
  }
  parts.tm_year -= 1900;
  parts.tm_mon -= 1;
  return time_from_unix_ms(static_cast<std::int64_t>(::timegm(&parts)) * 1000);
}

class Reader {
 public:
  explicit Reader(std::string_view text) : tokens_(tokenize(text)) {}

  LeaseFile read() {
    file_.journal = true;
    while (position_ < tokens_.size()) {
      const Token& token = tokens_[position_];
      if (token.kind == Token::Kind::Word && token.text == "lease" && position_ + 2 < tokens_.size() &&
          tokens_[position_ + 2].kind == Token::Kind::Open) {
        read_lease();
      } else {
        if (token.kind == Token::Kind::Word && (token.text == "host" || token.text == "failover")) {
          ++file_.ignored;
        }
        skip_statement();
      }
    }
    return std::move(file_);
  }

 private:
  // To the end of a statement: its ';', or the end of the block it opens.
  void skip_statement() {
    while (position_ < tokens_.size()) {
      const Token& token = tokens_[position_++];
      if (token.kind == Token::Kind::End || token.kind == Token::Kind::Close) return;
      if (token.kind == Token::Kind::Open) {
        skip_block();
        return;
      }
    }
  }
  void skip_block() {  // after its '{'
    int depth = 1;
    while (position_ < tokens_.size() && depth > 0) {
      const Token& token = tokens_[position_++];
      if (token.kind == Token::Kind::Open) ++depth;
      if (token.kind == Token::Kind::Close) --depth;
    }
  }

  void read_lease() {
    const int line = tokens_[position_].line;
    const std::string address_text = tokens_[position_ + 1].text;
    position_ += 3;
    ForeignLease lease;
    lease.line = line;
    lease.text = "lease " + address_text + " {";
    lease.state = "active";  // files older than "binding state" have only active leases
    std::string problem;
    const auto address = Ipv4::parse(address_text);
    if (!address) problem = "bad address '" + address_text + "'";
    if (address) lease.address = *address;
    bool closed = false;
    while (position_ < tokens_.size()) {
      if (tokens_[position_].kind == Token::Kind::Close) {
        ++position_;
        closed = true;
        break;
      }
      std::vector<const Token*> statement;
      while (position_ < tokens_.size()) {
        const Token& token = tokens_[position_];
        if (token.kind == Token::Kind::Close) break;
        ++position_;
        if (token.kind == Token::Kind::End) break;
        if (token.kind == Token::Kind::Open) {
          skip_block();
          break;
        }
        statement.push_back(&token);
      }
      if (problem.empty()) problem = apply(statement, lease);
    }
    if (!closed) problem = "the block is not closed";
    if (!problem.empty()) {
      file_.failures.push_back({line, lease.text, problem});
      return;
    }
    lease.active = lease.state == "active";
    file_.leases.push_back(std::move(lease));
  }

  // One statement of a lease block; a problem, or "".
  static std::string apply(const std::vector<const Token*>& words, ForeignLease& lease) {
    if (words.empty()) return {};
    const auto word = [&](std::size_t i) -> const std::string& {
      static const std::string none;
      return i < words.size() ? words[i]->text : none;
    };
    const std::string& name = word(0);
    if (name == "ends") {
      if (word(1) == "never") {
        lease.expires.reset();
      } else if (word(1) == "epoch") {
        std::int64_t seconds = 0;
        const std::string& text = word(2);
        if (std::from_chars(text.data(), text.data() + text.size(), seconds).ptr != text.data() + text.size()) {
          return "bad 'ends epoch " + text + "'";
        }
        lease.expires = time_from_unix_ms(seconds * 1000);
      } else if (auto time = parse_utc(word(2), word(3))) {
        lease.expires = time;
      } else {
        return "bad 'ends " + word(1) + " " + word(2) + " " + word(3) + "'";
      }
    } else if (name == "binding" && word(1) == "state") {
      lease.state = word(2);
    } else if (name == "abandoned") {
      lease.state = "abandoned";
    } else if (name == "hardware") {
      if (word(1) != "ethernet") return "hardware type '" + word(1) + "' is not supported (ethernet only)";
      const auto hardware = HardwareAddress::parse(word(2));
      if (!hardware) return "bad hardware address '" + word(2) + "'";
      lease.hardware = *hardware;
    } else if (name == "uid" && words.size() > 1) {
      if (words[1]->kind == Token::Kind::String) {
        const std::string& bytes = words[1]->text;
        if (bytes.empty() || bytes.size() > 255) return "bad uid length";
        lease.client_id = ClientId{std::span{reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}};
      } else if (auto id = ClientId::parse(word(1))) {
        lease.client_id = *id;
      } else {
        return "bad uid '" + word(1) + "'";
      }
    } else if (name == "client-hostname" && words.size() > 1) {
      lease.hostname = word(1);
    }
    return {};
  }

  std::vector<Token> tokens_;
  std::size_t position_ = 0;
  LeaseFile file_;
};

}  // namespace

LeaseFile read_dhcpd_leases(std::string_view text) { return Reader{text}.read(); }

}  // namespace landlord::migrate
