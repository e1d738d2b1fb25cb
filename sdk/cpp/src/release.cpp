// The answer to POST /api/v1/releases/latest: the validation's signed answer, checked by the same
// verifier as every check, with the channel asked about and the release the licence may have.
#include <sodium.h>

#include "iso_time.hpp"
#include "json.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

const std::string* text_of(const json::Value& object, std::string_view name) {
    const json::Value* member = object.find(name);
    return member && member->is_string() ? &member->string : nullptr;
}

bool is_sha256_hex(const std::string& text) { return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos; }

/** The offered release in a verified body, or nullopt when it is not the API's shape. */
std::optional<Release> read_release(const json::Value& offered, std::string_view channel) {
    Release release;
    const std::string* version = text_of(offered, "version");
    const std::string* offered_channel = text_of(offered, "channel");
    const std::string* sha256 = text_of(offered, "sha256");
    const std::string* url = text_of(offered, "url");
    const std::string* expires = text_of(offered, "urlExpiresAt");
    const json::Value* size = offered.find("size");
    if (!version || !offered_channel || *offered_channel != channel || !sha256 || !is_sha256_hex(*sha256) || !url || url->empty() || !expires ||
        !size || size->type != json::Value::Type::number || size->number < 0) {
        return std::nullopt;
    }
    const auto url_expires = parse_iso(*expires);
    if (!url_expires) return std::nullopt;
    release.version = *version;
    release.channel = *offered_channel;
    release.sha256 = *sha256;
    release.url = *url;
    release.url_expires_at_ms = *url_expires;
    release.size = static_cast<std::int64_t>(size->number);
    if (const std::string* notes = text_of(offered, "notes")) release.notes = *notes;
    if (const std::string* name = text_of(offered, "fileName")) release.file_name = *name;
    if (const std::string* published = text_of(offered, "publishedAt")) release.published_at_ms = parse_iso(*published).value_or(0);
    return release;
}

LatestRelease refused(Result licence, std::string error, std::string message) {
    LatestRelease answer;
    answer.licence = std::move(licence);
    answer.error = std::move(error);
    answer.message = std::move(message);
    return answer;
}

}  // namespace

std::string_view channel_entitlement(std::string_view channel) { return channel == "beta" ? "beta" : ""; }

LatestRelease Verifier::judge_release(const Question& sent, std::string_view channel, const HttpResponse& response, const ClockReading& clock) const {
    Result licence = judge_answer(sent, response, clock);
    if (licence.outcome != Outcome::valid && licence.outcome != Outcome::denied) {
        std::string error(to_string(licence.outcome));
        std::string message = licence.message;
        return refused(std::move(licence), std::move(error), std::move(message));
    }
    // The body's signature verified in judge_answer: what it says is the shop's.
    const auto document = json::parse(response.body);
    const std::string* answered = text_of(*document, "channel");
    // A genuine answer about another channel, kept by a proxy with this call's nonce.
    if (!answered || *answered != channel) {
        Result swapped;
        swapped.outcome = Outcome::tampered;
        swapped.reason = "channel";
        swapped.message = "The licence server's answer was about another release channel.";
        std::string message = swapped.message;
        return refused(std::move(swapped), "tampered", std::move(message));
    }
    if (licence.outcome == Outcome::denied) {
        std::string message = licence.message;
        return refused(std::move(licence), "denied", std::move(message));
    }
    const json::Value* offered = document->find("release");
    if (!offered || offered->type == json::Value::Type::null) {
        const std::string_view needs = channel_entitlement(channel);
        if (!needs.empty() && !licence.has_entitlement(needs)) {
            return refused(std::move(licence), "channel-not-allowed", "This licence's plan does not include the " + std::string(channel) + " channel.");
        }
        return refused(std::move(licence), "no-release", "No release is published on the " + std::string(channel) + " channel for this licence.");
    }
    auto release = offered->type == json::Value::Type::object ? read_release(*offered, channel) : std::nullopt;
    if (!release) return refused(std::move(licence), "malformed", "The licence server's release could not be read.");
    LatestRelease answer;
    answer.licence = std::move(licence);
    answer.release = std::move(release);
    answer.message = "Version " + answer.release->version + " is available.";
    return answer;
}

}  // namespace vertex::licence
