// The checks every licence SDK makes, in the order the conformance vectors fix: the signature over
// the exact body bytes, then the nonce, key and PC the answer names, then its freshness; offline,
// the stored lease's signature, whom it is for, the clocks, and its end.
#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "iso_time.hpp"
#include "json.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

/** The fields of a verified answer the program acts on. */
struct Answer {
    std::string code;
    std::string key;
    std::string hwid;
    std::string nonce;
    std::int64_t issued_at_ms = 0;
    std::int64_t ttl = 0;
    std::string product;
    std::string plan;
    std::optional<std::int64_t> expires_at_ms;
    std::optional<std::int64_t> lease_until_ms;
    std::vector<std::string> entitlements;
};

const std::string* string_of(const json::Value& object, std::string_view name) {
    const json::Value* member = object.find(name);
    return member && member->is_string() ? &member->string : nullptr;
}

/** The answer in `body`, or nullopt when it is not the API's shape. */
std::optional<Answer> read_answer(std::string_view body) {
    const auto document = json::parse(body);
    if (!document) return std::nullopt;
    Answer answer;
    const std::string* code = string_of(*document, "code");
    const std::string* key = string_of(*document, "key");
    const std::string* hwid = string_of(*document, "hwid");
    const std::string* nonce = string_of(*document, "nonce");
    const std::string* issued = string_of(*document, "issuedAt");
    if (!code || !key || !hwid || !nonce || !issued) return std::nullopt;
    const auto issued_at = parse_iso(*issued);
    if (!issued_at) return std::nullopt;
    answer.code = *code;
    answer.key = *key;
    answer.hwid = *hwid;
    answer.nonce = *nonce;
    answer.issued_at_ms = *issued_at;
    if (const json::Value* ttl = document->find("ttl"); ttl && ttl->type == json::Value::Type::number) answer.ttl = static_cast<std::int64_t>(ttl->number);
    if (const json::Value* licence = document->find("licence"); licence && licence->type == json::Value::Type::object) {
        if (const std::string* product = string_of(*licence, "product")) answer.product = *product;
        if (const std::string* plan = string_of(*licence, "plan")) answer.plan = *plan;
        if (const std::string* expires = string_of(*licence, "expiresAt")) {
            answer.expires_at_ms = parse_iso(*expires);
            if (!answer.expires_at_ms) return std::nullopt;
        }
        // Absent: the licence grants no entitlements.
        if (const json::Value* granted = licence->find("entitlements"); granted && granted->type == json::Value::Type::array) {
            for (const json::Value& name : granted->array) {
                if (name.is_string()) answer.entitlements.push_back(name.string);
            }
        }
    }
    if (const json::Value* lease = document->find("lease"); lease && lease->type == json::Value::Type::object) {
        const std::string* until = string_of(*lease, "until");
        if (!until || !(answer.lease_until_ms = parse_iso(*until))) return std::nullopt;
    }
    return answer;
}

Result make(Outcome outcome, std::string code, std::string reason, std::string message) {
    Result result;
    result.outcome = outcome;
    result.code = std::move(code);
    result.reason = std::move(reason);
    result.message = std::move(message);
    return result;
}

Result tampered(std::string reason, std::string message) { return make(Outcome::tampered, {}, std::move(reason), std::move(message)); }

Result offline(std::string reason, std::string message, std::string code = {}) { return make(Outcome::offline, std::move(code), std::move(reason), std::move(message)); }

std::string denied_message(std::string_view code) {
    if (code == "NOT_FOUND") return "This licence key does not exist.";
    if (code == "NOT_ACTIVATED") return "This licence key has not been activated yet.";
    if (code == "EXPIRED") return "This licence has expired.";
    if (code == "SUSPENDED") return "This licence is paused. Its time stands still until support resumes it.";
    if (code == "REVOKED") return "This licence was revoked (refunded or cancelled).";
    if (code == "BANNED") return "This licence, or this PC, is banned.";
    if (code == "HWID_MISMATCH") return "This key is bound to another PC. Its owner can reset the PC in the members' hub.";
    if (code == "WRONG_PRODUCT") return "This key is for another product.";
    return "This licence is not valid.";
}

Result verdict(Answer answer, bool from_lease, const std::string& product) {
    const bool other_product = answer.code == "VALID" && !product.empty() && answer.product != product;
    if (answer.code != "VALID" || other_product) {
        std::string code = other_product ? "WRONG_PRODUCT" : answer.code;
        std::string message = denied_message(code);
        return make(Outcome::denied, std::move(code), {}, std::move(message));
    }
    Result result = make(Outcome::valid, "VALID", {}, from_lease ? "Licence valid (offline lease)." : "Licence valid.");
    result.from_lease = from_lease;
    result.product = std::move(answer.product);
    result.plan = std::move(answer.plan);
    result.expires_at_ms = answer.expires_at_ms;
    result.lease_until_ms = answer.lease_until_ms.value_or(0);
    result.issued_at_ms = answer.issued_at_ms;
    result.recheck_after_seconds = answer.ttl;
    result.entitlements = std::move(answer.entitlements);
    return result;
}

std::string code_of_error(const std::string& body) {
    const auto document = json::parse(body);
    if (!document) return {};
    const json::Value* error = document->find("error");
    const std::string* code = error ? string_of(*error, "code") : nullptr;
    return code ? *code : std::string();
}

Result failure(const HttpResponse& response) {
    if (response.status == 0) return offline("unreachable", "The licence server could not be reached.");
    std::string code = code_of_error(response.body);
    if (response.status == 429) {
        Result result = offline("rate-limited", "Too many licence checks; trying again later.", std::move(code));
        result.retry_after_seconds = response.retry_after_seconds;
        return result;
    }
    if (response.status >= 500) return offline("server-error", "The licence server is unavailable.", std::move(code));
    return offline("unexpected-status", "The licence server answered HTTP " + std::to_string(response.status) + ".", std::move(code));
}

}  // namespace

std::string_view to_string(Outcome outcome) {
    switch (outcome) {
        case Outcome::valid: return "valid";
        case Outcome::denied: return "denied";
        case Outcome::offline: return "offline";
        case Outcome::tampered: return "tampered";
    }
    return "offline";
}

bool Result::has_entitlement(std::string_view name) const {
    return outcome == Outcome::valid && std::find(entitlements.begin(), entitlements.end(), name) != entitlements.end();
}

Verifier::Verifier(std::string_view public_key_base64, std::string product) : product_(std::move(product)) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
    std::size_t length = 0;
    if (sodium_base642bin(public_key_.data(), public_key_.size(), public_key_base64.data(), public_key_base64.size(), nullptr, &length, nullptr,
                          sodium_base64_VARIANT_ORIGINAL) != 0 ||
        length != public_key_.size()) {
        throw std::invalid_argument("The shop's public key must be base64 of 32 bytes");
    }
}

namespace {

/** The answer behind `signature`, or nullopt when it does not verify over these exact bytes. */
std::optional<Answer> open(const std::array<unsigned char, 32>& public_key, const std::string& body, const std::string& signature) {
    std::array<unsigned char, crypto_sign_BYTES> raw{};
    std::size_t length = 0;
    if (signature.empty() ||
        sodium_base642bin(raw.data(), raw.size(), signature.data(), signature.size(), nullptr, &length, nullptr, sodium_base64_VARIANT_ORIGINAL) != 0 ||
        length != raw.size()) {
        return std::nullopt;
    }
    if (crypto_sign_verify_detached(raw.data(), reinterpret_cast<const unsigned char*>(body.data()), body.size(), public_key.data()) != 0) return std::nullopt;
    return read_answer(body);
}

}  // namespace

Result Verifier::judge_answer(const Question& sent, const HttpResponse& response, const ClockReading& clock) const {
    if (response.status != 200) return failure(response);
    auto answer = open(public_key_, response.body, response.signature);
    if (!answer) return tampered("signature", "The licence server's answer is not genuine.");
    // A genuine answer to another question: recorded earlier, or asked about another key or PC by
    // a proxy that kept this call's nonce.
    if (answer->nonce != sent.nonce) return tampered("nonce", "The licence server's answer was not for this check.");
    if (answer->key != sent.key) return tampered("key", "The licence server's answer was about another key.");
    if (answer->hwid != sent.hwid) return tampered("hwid", "The licence server's answer was about another PC.");
    if (clock.trusted_ms && answer->issued_at_ms < *clock.trusted_ms - clock_skew_ms) return tampered("stale", "The licence server's answer is older than one already seen.");
    return verdict(std::move(*answer), false, product_);
}

Result Verifier::judge_lease(const Question& asked, const std::optional<StoredLease>& stored, const ClockReading& clock) const {
    if (!stored) return offline("no-lease", "No offline lease is stored.");
    auto answer = open(public_key_, stored->body, stored->signature);
    if (!answer) return tampered("signature", "The stored offline lease is not genuine.");
    if (answer->key != asked.key || answer->hwid != asked.hwid || answer->code != "VALID" || !answer->lease_until_ms) {
        return offline("no-lease", "No offline lease is stored for this key on this PC.");
    }
    const std::int64_t newest = std::max(answer->issued_at_ms, clock.trusted_ms.value_or(answer->issued_at_ms));
    if (clock.now_ms < newest - clock_skew_ms || clock.drift_ms < -max_backward_drift_ms) return tampered("rollback", "The computer's clock was set back.");
    if (clock.trusted_ms && answer->issued_at_ms < *clock.trusted_ms - clock_skew_ms) return tampered("stale", "The stored offline lease is older than an answer already seen.");
    const std::int64_t until = std::min(*answer->lease_until_ms, answer->expires_at_ms.value_or(*answer->lease_until_ms));
    if (clock.now_ms >= until) return offline("lease-expired", "The offline lease has ended.");
    return verdict(std::move(*answer), true, product_);
}

}  // namespace vertex::licence
