// A signed answer's fields as the program acts on them: the one place that reads an answer's body
// (validate, releases/latest and deactivate answer alike), once its signature has verified.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vertex::licence {

struct Answer {
    std::string code;
    std::string key;
    std::string hwid;
    std::string nonce;
    std::int64_t issued_at_ms = 0;
    std::int64_t ttl = 0;
    // The licence's terms (its `licence` object), when the answer carries them.
    std::string product;
    std::string plan;
    std::optional<std::int64_t> expires_at_ms;
    // The shop's signed renewal link (`renewUrl`), empty when the licence has none.
    std::string renew_url;
    std::vector<std::string> entitlements;
    // The offline lease (`lease.until`), on VALID answers.
    std::optional<std::int64_t> lease_until_ms;
};

/** The answer in `body`, or nullopt when it is not the API's shape. */
std::optional<Answer> read_answer(std::string_view body);

}  // namespace vertex::licence
