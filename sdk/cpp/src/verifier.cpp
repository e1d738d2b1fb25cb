// The checks every licence SDK makes, in the order the conformance vectors fix: the signature over
// the exact body bytes, then the nonce, key and PC the answer names, then its freshness; offline,
// the stored answer's signature, whom it is for, the clocks, and its end.
#include <sodium.h>

#include <algorithm>
#include <stdexcept>

#include "answer.hpp"
#include "iso_time.hpp"
#include "json.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

Code code_of(std::string_view code) {
    static const std::pair<std::string_view, Code> known[] = {
        {"VALID", Code::valid},     {"NOT_FOUND", Code::not_found},         {"NOT_ACTIVATED", Code::not_activated},
        {"EXPIRED", Code::expired}, {"SUSPENDED", Code::suspended},         {"REVOKED", Code::revoked},
        {"BANNED", Code::banned},   {"HWID_MISMATCH", Code::hwid_mismatch}, {"RELEASED", Code::released},
        {"TOO_SOON", Code::too_soon},
    };
    for (const auto& [name, value] : known) {
        if (name == code) return value;
    }
    return Code::other;
}

Result make(Outcome outcome, Reason reason, std::string message) {
    Result result;
    result.outcome = outcome;
    result.reason = reason;
    result.message = std::move(message);
    return result;
}

const json::Value* member_of(const std::optional<json::Value>& document, std::string_view name) { return document ? document->find(name) : nullptr; }

}  // namespace

bool Result::has_entitlement(std::string_view name) const {
    return outcome == Outcome::valid && std::find(entitlements.begin(), entitlements.end(), name) != entitlements.end();
}

Verifier::Verifier(std::string_view public_key_base64, std::string product, Messages messages) : product_(std::move(product)), messages_(std::move(messages)) {
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

/** What a verified answer means: valid (VALID, for this program's product), else denied with its code. */
Result verdict(const Verifier& words, Answer answer, bool from_lease, const std::string& product) {
    Code code = code_of(answer.code);
    if (code == Code::valid && !product.empty() && answer.product != product) code = Code::wrong_product;
    Result result;
    result.code = code;
    result.api_code = code == Code::wrong_product ? "WRONG_PRODUCT" : answer.code;
    result.from_lease = from_lease;
    result.issued_at_ms = answer.issued_at_ms;
    // A refusal that names the licence (EXPIRED) still tells the program when it ended and where to renew it.
    result.expires_at_ms = answer.expires_at_ms;
    result.renew_url = std::move(answer.renew_url);
    if (code != Code::valid) {
        const std::string key = "denied." + result.api_code;
        result.outcome = Outcome::denied;
        result.message = words.say(english_messages().count(key) > 0 ? std::string_view(key) : "denied.OTHER");
        return result;
    }
    result.outcome = Outcome::valid;
    result.message = words.say(from_lease ? "valid.lease" : "valid");
    result.product = std::move(answer.product);
    result.plan = std::move(answer.plan);
    result.lease_until_ms = answer.lease_until_ms.value_or(0);
    result.recheck_after_seconds = answer.ttl;
    result.entitlements = std::move(answer.entitlements);
    return result;
}

/** No signed verdict: why, from the status and the API's error body. */
Result failure(const Verifier& words, const HttpResponse& response) {
    if (response.status == 0) return make(Outcome::offline, Reason::unreachable, words.say("offline.unreachable"));
    const auto document = json::parse(response.body);
    const json::Value* error = member_of(document, "error");
    const json::Value* code = error ? error->find("code") : nullptr;
    const json::Value* field = error ? error->find("field") : nullptr;
    const json::Value* detail = error ? error->find("message") : nullptr;
    Result result;
    if (response.status == 400 || response.status == 413) {
        // The request itself is wrong (a malformed key, a too-short hwid, an unknown channel): the
        // program's mistake, which no lease and no waiting can mend.
        const std::string said = detail && detail->is_string() ? detail->string : "HTTP " + std::to_string(response.status);
        result = make(Outcome::invalid_request, Reason::none, words.say("invalid-request", {{"detail", said}}));
        if (field && field->is_string()) result.field = field->string;
    } else if (response.status == 429) {
        result = make(Outcome::offline, Reason::rate_limited, words.say("offline.rate-limited"));
        result.retry_after_seconds = response.retry_after_seconds;
    } else if (response.status >= 500) {
        result = make(Outcome::offline, Reason::server_error, words.say("offline.server-error"));
    } else {
        result = make(Outcome::offline, Reason::unexpected_status, words.say("offline.unexpected-status", {{"status", std::to_string(response.status)}}));
    }
    if (code && code->is_string()) result.api_code = code->string;
    return result;
}

}  // namespace

std::optional<std::int64_t> Verifier::signed_time(const StoredLease& stored) const {
    const auto answer = open(public_key_, stored.body, stored.signature);
    return answer ? std::optional(answer->issued_at_ms) : std::nullopt;
}

Result Verifier::judge_answer(const Question& sent, const HttpResponse& response, const ClockReading& clock) const {
    if (response.status != 200) return failure(*this, response);
    auto answer = open(public_key_, response.body, response.signature);
    if (!answer) return make(Outcome::tampered, Reason::signature, say("tampered.signature"));
    // A genuine answer to another question: recorded earlier, or asked about another key or PC by
    // a proxy that kept this call's nonce.
    if (answer->nonce != sent.nonce) return make(Outcome::tampered, Reason::nonce, say("tampered.nonce"));
    if (answer->key != sent.key) return make(Outcome::tampered, Reason::key, say("tampered.key"));
    if (answer->hwid != sent.hwid) return make(Outcome::tampered, Reason::hwid, say("tampered.hwid"));
    if (clock.trusted_ms && answer->issued_at_ms < *clock.trusted_ms - clock_skew_ms) return make(Outcome::tampered, Reason::stale, say("tampered.stale"));
    return verdict(*this, std::move(*answer), false, product_);
}

Result Verifier::judge_lease(const Question& asked, const std::optional<StoredLease>& stored, const ClockReading& clock) const {
    if (!stored) return make(Outcome::offline, Reason::no_lease, say("offline.no-lease"));
    auto answer = open(public_key_, stored->body, stored->signature);
    if (!answer) return make(Outcome::tampered, Reason::signature, say("tampered.lease-signature"));
    if (answer->key != asked.key || answer->hwid != asked.hwid) return make(Outcome::offline, Reason::no_lease, say("offline.no-lease"));
    // The signed refusal that ended the lease: offline, the program learns what the shop last said.
    if (answer->code != "VALID") return verdict(*this, std::move(*answer), true, product_);
    if (!answer->lease_until_ms) return make(Outcome::offline, Reason::no_lease, say("offline.no-lease"));
    const std::int64_t newest = std::max(answer->issued_at_ms, clock.trusted_ms.value_or(answer->issued_at_ms));
    if (clock.now_ms < newest - clock_skew_ms || clock.drift_ms < -max_backward_drift_ms) return make(Outcome::tampered, Reason::rollback, say("tampered.rollback"));
    if (clock.trusted_ms && answer->issued_at_ms < *clock.trusted_ms - clock_skew_ms) return make(Outcome::tampered, Reason::stale, say("tampered.lease-stale"));
    const std::int64_t until = std::min(*answer->lease_until_ms, answer->expires_at_ms.value_or(*answer->lease_until_ms));
    if (clock.now_ms >= until) return make(Outcome::offline, Reason::lease_expired, say("offline.lease-expired"));
    return verdict(*this, std::move(*answer), true, product_);
}

Deactivation Verifier::judge_deactivation(const Question& sent, const HttpResponse& response, const ClockReading& clock) const {
    Deactivation deactivation;
    Result& result = deactivation.result;
    result = judge_answer(sent, response, clock);
    // Only a signed RELEASED releases; a genuine validation's VALID, passed off with this call's
    // nonce, says nothing about this PC being released.
    if (result.code == Code::released) {
        result.outcome = Outcome::valid;
        result.message = say("released");
    } else if (result.outcome == Outcome::valid || result.code == Code::wrong_product) {
        Result refused;
        refused.outcome = Outcome::denied;
        refused.code = Code::other;
        refused.api_code = result.api_code;
        refused.issued_at_ms = result.issued_at_ms;
        refused.message = say("denied.OTHER");
        result = std::move(refused);
    }
    if (result.code == Code::too_soon) {
        const auto document = json::parse(response.body);
        if (const json::Value* next = member_of(document, "nextReleaseAt"); next && next->is_string()) {
            deactivation.next_release_at_ms = parse_iso(next->string).value_or(0);
        }
    }
    return deactivation;
}

}  // namespace vertex::licence
