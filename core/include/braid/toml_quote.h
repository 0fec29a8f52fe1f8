// Writing a TOML value that ParseToml (braid/toml_reader.h) reads back: the
// one quoter every writer of Braid's data files uses.
#pragma once

#include <string>
#include <string_view>

namespace braid {

// `text` as a TOML basic string, quotes included. Escapes per the TOML spec:
// \b \t \n \f \r \" \\ by name, every other control character (U+0000 to
// U+001F, U+007F) as \uXXXX; all other bytes pass as they are.
// @post ParseToml("k = " + TomlQuote(text)) reads `text` back when it is UTF-8.
std::string TomlQuote(std::string_view text);

}  // namespace braid
