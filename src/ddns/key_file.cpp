// BIND's key statement as `tsig-keygen` writes it:
//   key "ddns-key" {
//           algorithm hmac-sha256;
//           secret "base64...";
//   };
// A small tokenizer (words, quoted strings, braces, semicolons; #, // and /* */ comments) and a
// parser for that one statement, repeated. Everything else is an error with its line.
#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "landlord/ddns/base64.hpp"
#include "landlord/ddns/tsig.hpp"

namespace landlord::ddns {
namespace {

struct Token {
  enum Kind { kWord, kString, kPunct, kEnd } kind = kEnd;
  std::string text;
  int line = 1;
};

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  // nullopt-like failure carried as a kEnd token with an error set.
  Token next() {
    skip_space_and_comments();
    Token token;
    token.line = line_;
    if (!error_.empty() || at_ >= text_.size()) return token;
    const char c = text_[at_];
    if (c == '{' || c == '}' || c == ';') {
      ++at_;
      return {Token::kPunct, std::string(1, c), line_};
    }
    if (c == '"') {
      const std::size_t close = text_.find('"', at_ + 1);
      if (close == std::string_view::npos) {
        error_ = "unterminated string";
        return token;
      }
      token = {Token::kString, std::string(text_.substr(at_ + 1, close - at_ - 1)), line_};
      for (std::size_t i = at_; i < close; ++i) line_ += text_[i] == '\n';
      at_ = close + 1;
      return token;
    }
    const std::size_t start = at_;
    while (at_ < text_.size() && !is_space(text_[at_]) && text_[at_] != '{' && text_[at_] != '}' &&
           text_[at_] != ';' && text_[at_] != '"') {
      ++at_;
    }
    return {Token::kWord, std::string(text_.substr(start, at_ - start)), line_};
  }
  const std::string& error() const { return error_; }
  int line() const { return line_; }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  void skip_space_and_comments() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (is_space(c)) {
        line_ += c == '\n';
        ++at_;
      } else if (c == '#' || text_.substr(at_, 2) == "//") {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (text_.substr(at_, 2) == "/*") {
        const std::size_t close = text_.find("*/", at_ + 2);
        if (close == std::string_view::npos) {
          error_ = "unterminated comment";
          at_ = text_.size();
          return;
        }
        for (std::size_t i = at_; i < close; ++i) line_ += text_[i] == '\n';
        at_ = close + 2;
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 1;
  std::string error_;
};


// A word of the file, quoted in an error only when it looks like a keyword: the file named may
// be anyone's (a config-test of a config naming /etc/shadow), so nothing like a secret or a
// hash is ever echoed.
std::string shown(std::string_view word) {
  const bool keyword = !word.empty() && word.size() <= 32 &&
                       std::all_of(word.begin(), word.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
                       });
  return keyword ? "'" + std::string(word) + "'" : std::string("a word that is not one");
}

}  // namespace

Expected<std::vector<TsigKey>, std::string> parse_key_file(std::string_view text,
                                                           std::string_view source) {
  Tokenizer tokens(text);
  std::vector<TsigKey> keys;
  auto fail = [&](int line, const std::string& what) {
    return unexpected(std::string(source) + ":" + std::to_string(line) + ": " + what);
  };
  auto expect_punct = [&](const char* punct, const char* after) -> std::optional<std::string> {
    const Token token = tokens.next();
    if (token.kind == Token::kPunct && token.text == punct) return std::nullopt;
    return std::string(source) + ":" + std::to_string(token.line) + ": expected '" + punct +
           "' after " + after;  // `after` is a keyword (shown) or one of ours
  };
  constexpr std::size_t kMaxKeys = 1024;
  while (true) {
    Token token = tokens.next();
    if (!tokens.error().empty()) return fail(tokens.line(), tokens.error());
    if (token.kind == Token::kEnd) break;
    if (token.kind != Token::kWord || token.text != "key") {
      return fail(token.line, "expected a key statement, found " + shown(token.text));
    }
    if (keys.size() == kMaxKeys) return fail(token.line, "more than 1024 keys");
    const Token name_token = tokens.next();
    if (name_token.kind != Token::kString && name_token.kind != Token::kWord) {
      return fail(name_token.line, "expected the key's name");
    }
    auto name = Name::from_text(name_token.text);
    if (!name) return fail(name_token.line, "the key's name is not a DNS name");
    if (auto error = expect_punct("{", "the key's name")) return unexpected(*error);
    TsigKey key{std::move(*name), TsigAlgorithm::kHmacSha256, {}};
    bool have_algorithm = false, have_secret = false;
    while (true) {
      const Token field = tokens.next();
      if (!tokens.error().empty()) return fail(tokens.line(), tokens.error());
      if (field.kind == Token::kPunct && field.text == "}") break;
      if (field.kind != Token::kWord) return fail(field.line, "expected algorithm, secret or '}'");
      const Token value = tokens.next();
      if (value.kind != Token::kWord && value.kind != Token::kString) {
        return fail(value.line, "expected a value after " + shown(field.text));
      }
      if (field.text == "algorithm") {
        const auto algorithm = tsig_algorithm_from_text(value.text);
        if (!algorithm) {
          return fail(value.line, "unknown algorithm " + shown(value.text) +
                                      " (hmac-md5, hmac-sha1, hmac-sha224, hmac-sha256, "
                                      "hmac-sha384, hmac-sha512)");
        }
        key.algorithm = *algorithm;
        have_algorithm = true;
      } else if (field.text == "secret") {
        auto secret = base64_decode(value.text);
        if (!secret || secret->empty()) return fail(value.line, "secret is not base64");
        key.secret = std::move(*secret);
        have_secret = true;
      } else {
        return fail(field.line, "unknown key field " + shown(field.text));
      }
      if (auto error = expect_punct(";", shown(field.text).c_str())) return unexpected(*error);
    }
    if (auto error = expect_punct(";", "'}'")) return unexpected(*error);
    if (!have_algorithm) return fail(name_token.line, "key '" + key.name.to_text() + "' has no algorithm");
    if (!have_secret) return fail(name_token.line, "key '" + key.name.to_text() + "' has no secret");
    keys.push_back(std::move(key));
  }
  if (keys.empty()) return fail(tokens.line(), "no key statement");
  return keys;
}

}  // namespace landlord::ddns
