// Carrying a status across a boundary keeps its kind, so that a user error
// still exits 2 after a layer added where it happened or a rank sent it on.
#pragma once

#include <string>

#include "braid/status.h"

namespace braid {

// The status of `code` with `message`; Ok() for kOk (the message is dropped).
Status StatusOf(StatusCode code, std::string message);

// `s` with "context: " before its message, its code kept; Ok stays Ok.
Status WithContext(const Status& s, const std::string& context);

}  // namespace braid
