// Base64 (RFC 4648, with padding): encoded for the data: URLs the SVG and HTML outputs embed,
// decoded for the precompiled charsmap of a tokenizer.json.
#pragma once

#include <string>
#include <string_view>

namespace attnviz {

std::string base64(const std::string& bytes);
// The bytes of base64 text (RFC 4648, '=' padding, whitespace skipped); false for a character
// outside the alphabet or a length that is not whole.
bool decode_base64(std::string_view text, std::string& out);

}  // namespace attnviz
