// The answer to POST /api/v1/releases/latest: the validation's signed answer, checked by the same
// verifier as every check, with the channel asked about and the release the licence may have, and
// whether it is newer than the program's own version.
#include <algorithm>
#include <map>

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

LatestRelease refused(Result licence, ReleaseError error, std::string message) {
    LatestRelease answer;
    answer.licence = std::move(licence);
    answer.error = error;
    answer.message = std::move(message);
    return answer;
}

ReleaseError error_of(Outcome outcome) {
    switch (outcome) {
        case Outcome::denied: return ReleaseError::denied;
        case Outcome::tampered: return ReleaseError::tampered;
        case Outcome::invalid_request: return ReleaseError::invalid_request;
        default: return ReleaseError::offline;
    }
}

/** A version's parts (semver.org): the numbers, the pre-release identifiers; nullopt when not semantic. */
struct Semantic {
    std::vector<std::string_view> numbers;
    std::vector<std::string_view> pre_release;
};

bool all_digits(std::string_view text) { return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos; }

std::vector<std::string_view> split(std::string_view text, char at) {
    std::vector<std::string_view> parts;
    for (std::size_t from = 0;;) {
        const std::size_t to = text.find(at, from);
        parts.push_back(text.substr(from, to == std::string_view::npos ? std::string_view::npos : to - from));
        if (to == std::string_view::npos) return parts;
        from = to + 1;
    }
}

std::optional<Semantic> semantic(std::string_view version) {
    if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.remove_prefix(1);
    version = version.substr(0, version.find('+'));  // build metadata does not order versions
    const std::size_t dash = version.find('-');
    Semantic parts{split(version.substr(0, dash), '.'), {}};
    if (dash != std::string_view::npos) parts.pre_release = split(version.substr(dash + 1), '.');
    if (parts.numbers.size() != 3) return std::nullopt;
    for (std::string_view number : parts.numbers) {
        if (!all_digits(number)) return std::nullopt;
    }
    for (std::string_view identifier : parts.pre_release) {
        if (identifier.empty()) return std::nullopt;
    }
    return parts;
}

/** Numeric identifiers by value (any length), others as text; numbers before text. */
int compare_identifiers(std::string_view a, std::string_view b) {
    const bool a_number = all_digits(a), b_number = all_digits(b);
    if (a_number && b_number) {
        a = a.substr(std::min(a.find_first_not_of('0'), a.size() - 1));
        b = b.substr(std::min(b.find_first_not_of('0'), b.size() - 1));
        if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    } else if (a_number != b_number) {
        return a_number ? -1 : 1;
    }
    return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
}

}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
    const auto left = semantic(a), right = semantic(b);
    if (!left || !right) return a.compare(b) < 0 ? -1 : a.compare(b) > 0 ? 1 : 0;
    for (std::size_t i = 0; i < 3; ++i) {
        if (const int order = compare_identifiers(left->numbers[i], right->numbers[i])) return order;
    }
    // A pre-release comes before its release.
    if (left->pre_release.empty() != right->pre_release.empty()) return left->pre_release.empty() ? 1 : -1;
    for (std::size_t i = 0; i < std::min(left->pre_release.size(), right->pre_release.size()); ++i) {
        if (const int order = compare_identifiers(left->pre_release[i], right->pre_release[i])) return order;
    }
    return left->pre_release.size() < right->pre_release.size() ? -1 : left->pre_release.size() > right->pre_release.size() ? 1 : 0;
}

std::string_view channel_entitlement(std::string_view channel) { return channel == "beta" ? "beta" : ""; }

LatestRelease Verifier::judge_release(const Question& sent, std::string_view channel, const HttpResponse& response, const ClockReading& clock,
                                      std::string_view current_version) const {
    Result licence = judge_answer(sent, response, clock);
    if (licence.outcome != Outcome::valid && licence.outcome != Outcome::denied) {
        const ReleaseError error = error_of(licence.outcome);
        std::string message = licence.message;
        return refused(std::move(licence), error, std::move(message));
    }
    // The body's signature verified in judge_answer: what it says is the shop's.
    const auto document = json::parse(response.body);
    const std::string* answered = text_of(*document, "channel");
    // A genuine answer about another channel, kept by a proxy with this call's nonce.
    if (!answered || *answered != channel) {
        Result swapped;
        swapped.outcome = Outcome::tampered;
        swapped.reason = Reason::channel;
        swapped.message = say("tampered.channel");
        std::string message = swapped.message;
        return refused(std::move(swapped), ReleaseError::tampered, std::move(message));
    }
    if (licence.outcome == Outcome::denied) {
        std::string message = licence.message;
        return refused(std::move(licence), ReleaseError::denied, std::move(message));
    }
    const json::Value* offered = document->find("release");
    const std::map<std::string, std::string, std::less<>> named = {{"channel", std::string(channel)}};
    if (!offered || offered->type == json::Value::Type::null) {
        const std::string_view needs = channel_entitlement(channel);
        if (!needs.empty() && !licence.has_entitlement(needs)) return refused(std::move(licence), ReleaseError::channel_not_allowed, say("release.channel-not-allowed", named));
        return refused(std::move(licence), ReleaseError::no_release, say("release.no-release", named));
    }
    auto release = offered->type == json::Value::Type::object ? read_release(*offered, channel) : std::nullopt;
    if (!release) return refused(std::move(licence), ReleaseError::malformed, say("release.malformed"));
    LatestRelease answer;
    answer.licence = std::move(licence);
    const bool newer = current_version.empty() || compare_versions(release->version, current_version) > 0;
    answer.error = newer ? ReleaseError::none : ReleaseError::up_to_date;
    answer.message = say(newer ? "release.available" : "release.up-to-date", {{"version", release->version}});
    answer.release = std::move(release);
    return answer;
}

}  // namespace vertex::licence
