// The lexical half of the data-file reader (toml_reader.cc builds the
// tables): walks the text byte by byte keeping line and column, skips blanks
// and comments, and reads one-line strings, numbers and booleans. The first
// error is kept with its position ("file:line:col: message").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "braid/status.h"
#include "braid/toml_reader.h"

namespace braid {

// Characters allowed in a bare key (and hence right after a number or word).
inline bool BareKeyChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class TomlScanner {
 protected:
  TomlScanner(std::string_view text, std::string_view origin) : s_(text), origin_(origin) {}

  // --- errors: each returns false so that a caller can `return Error(...)`.
  bool Error(std::string msg) { return ErrorAt(line_, col_, std::move(msg)); }
  bool ErrorAt(int line, int col, std::string msg);
  Status Fail() const { return Status::Invalid(error_); }

  // --- characters
  bool Eof() const { return i_ >= s_.size(); }
  char Peek(size_t ahead = 0) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  std::string_view Rest() const { return s_.substr(i_); }
  void Next() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  void SkipBlanks() {
    while (!Eof() && (Peek() == ' ' || Peek() == '\t')) Next();
  }
  std::string Shown(char c) const;  // 'x', or "byte 0x.." for what cannot be printed
  bool EndOfLine();                 // blanks, an optional comment, then a newline or the end
  bool SkipArrayFiller();           // blanks, newlines and comments inside an array

  // --- scalar values
  bool Word(TomlValue& v, std::string_view word, bool value);  // true / false
  bool Number(TomlValue& v);
  bool String(std::string& out);  // "basic" or 'literal', one line

  int line_ = 1, col_ = 1;

 private:
  bool Escape(std::string& out);
  bool Unicode(std::string& out, int hex_digits);
  static bool ValidUtf8(std::string_view s);

  std::string_view s_, origin_;
  size_t i_ = 0;
  std::string error_;
};

}  // namespace braid
