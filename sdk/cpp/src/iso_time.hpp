// The one timestamp form the licence API writes: "2026-11-22T09:14:03.512Z" (JavaScript's toISOString).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vertex::licence {

/** Milliseconds since the epoch of "YYYY-MM-DDTHH:MM:SS.sssZ", or nullopt for anything else. */
std::optional<std::int64_t> parse_iso(std::string_view text);

}  // namespace vertex::licence
