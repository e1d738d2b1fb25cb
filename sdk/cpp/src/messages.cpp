// Every sentence the SDK gives people, in one table a program can replace key by key
// (Config::messages), and the names of the SDK's codes as the API document writes them.
#include "vertex/licence.hpp"

namespace vertex::licence {

const Messages& english_messages() {
    static const Messages english = {
        {"valid", "Licence valid."},
        {"valid.lease", "Licence valid (offline lease)."},
        {"denied.NOT_FOUND", "This licence key does not exist."},
        {"denied.NOT_ACTIVATED", "This licence key has not been activated yet."},
        {"denied.EXPIRED", "This licence has expired."},
        {"denied.SUSPENDED", "This licence is paused. Its time stands still until support resumes it."},
        {"denied.REVOKED", "This licence was revoked (refunded or cancelled)."},
        {"denied.BANNED", "This licence, or this PC, is banned."},
        {"denied.HWID_MISMATCH", "This key is bound to another PC. Its owner can reset the PC in the members' hub."},
        {"denied.WRONG_PRODUCT", "This key is for another product."},
        {"denied.TOO_SOON", "This key's PC was moved recently; it can move again later."},
        {"denied.OTHER", "This licence is not valid."},
        {"released", "This PC no longer holds the licence: the next PC that checks the key takes it."},
        {"offline.unreachable", "The licence server could not be reached."},
        {"offline.rate-limited", "Too many licence checks; trying again later."},
        {"offline.server-error", "The licence server is unavailable."},
        {"offline.unexpected-status", "The licence server answered HTTP {status}."},
        {"offline.no-lease", "No offline lease is stored for this key on this PC."},
        {"offline.lease-expired", "The offline lease has ended."},
        {"tampered.signature", "The licence server's answer is not genuine."},
        {"tampered.lease-signature", "The stored offline lease is not genuine."},
        {"tampered.nonce", "The licence server's answer was not for this check."},
        {"tampered.key", "The licence server's answer was about another key."},
        {"tampered.hwid", "The licence server's answer was about another PC."},
        {"tampered.stale", "The licence server's answer is older than one already seen."},
        {"tampered.lease-stale", "The stored offline lease is older than an answer already seen."},
        {"tampered.rollback", "The computer's clock was set back."},
        {"tampered.channel", "The licence server's answer was about another release channel."},
        {"invalid-request", "The licence server refused the program's request: {detail}"},
        {"release.available", "Version {version} is available."},
        {"release.up-to-date", "Version {version} is the newest: this program is up to date."},
        {"release.no-release", "No release is published on the {channel} channel for this licence."},
        {"release.channel-not-allowed", "This licence's plan does not include the {channel} channel."},
        {"release.malformed", "The licence server's release could not be read."},
        {"download.done", "Downloaded and verified version {version}: {path}"},
        {"download.unreachable", "The download server could not be reached; the download resumes from here next time."},
        {"download.cut-off", "The download was cut off; it resumes from here next time."},
        {"download.status", "The download server answered HTTP {status}."},
        {"download.link-expired", "The download link has expired or no longer applies: ask for the latest release again."},
        {"download.too-large", "The download is larger than the release."},
        {"download.checksum", "The downloaded file is not the release the shop signed; it was removed."},
        {"download.io", "The download could not be saved: {detail}"},
    };
    return english;
}

std::string_view to_string(Outcome outcome) {
    switch (outcome) {
        case Outcome::valid: return "valid";
        case Outcome::denied: return "denied";
        case Outcome::offline: return "offline";
        case Outcome::tampered: return "tampered";
        case Outcome::invalid_request: return "invalid-request";
    }
    return "offline";
}

std::string_view to_string(Code code) {
    switch (code) {
        case Code::none: return "";
        case Code::valid: return "VALID";
        case Code::not_found: return "NOT_FOUND";
        case Code::not_activated: return "NOT_ACTIVATED";
        case Code::expired: return "EXPIRED";
        case Code::suspended: return "SUSPENDED";
        case Code::revoked: return "REVOKED";
        case Code::banned: return "BANNED";
        case Code::hwid_mismatch: return "HWID_MISMATCH";
        case Code::wrong_product: return "WRONG_PRODUCT";
        case Code::released: return "RELEASED";
        case Code::too_soon: return "TOO_SOON";
        case Code::other: return "OTHER";
    }
    return "OTHER";
}

std::string_view to_string(Reason reason) {
    switch (reason) {
        case Reason::none: return "";
        case Reason::unreachable: return "unreachable";
        case Reason::rate_limited: return "rate-limited";
        case Reason::server_error: return "server-error";
        case Reason::unexpected_status: return "unexpected-status";
        case Reason::no_lease: return "no-lease";
        case Reason::lease_expired: return "lease-expired";
        case Reason::signature: return "signature";
        case Reason::nonce: return "nonce";
        case Reason::key: return "key";
        case Reason::hwid: return "hwid";
        case Reason::stale: return "stale";
        case Reason::rollback: return "rollback";
        case Reason::channel: return "channel";
    }
    return "";
}

std::string_view to_string(ReleaseError error) {
    switch (error) {
        case ReleaseError::none: return "";
        case ReleaseError::up_to_date: return "up-to-date";
        case ReleaseError::no_release: return "no-release";
        case ReleaseError::channel_not_allowed: return "channel-not-allowed";
        case ReleaseError::denied: return "denied";
        case ReleaseError::offline: return "offline";
        case ReleaseError::tampered: return "tampered";
        case ReleaseError::invalid_request: return "invalid-request";
        case ReleaseError::malformed: return "malformed";
    }
    return "";
}

std::string_view to_string(DownloadError error) {
    switch (error) {
        case DownloadError::none: return "";
        case DownloadError::unreachable: return "unreachable";
        case DownloadError::status: return "status";
        case DownloadError::too_large: return "too-large";
        case DownloadError::checksum: return "checksum";
        case DownloadError::io: return "io";
    }
    return "";
}

std::string Verifier::say(std::string_view key, const std::map<std::string, std::string, std::less<>>& values) const {
    const auto own = messages_.find(key);
    const auto english = english_messages().find(key);
    std::string text = own != messages_.end() ? own->second : english != english_messages().end() ? english->second : std::string(key);
    for (const auto& [name, value] : values) {
        const std::string placeholder = "{" + name + "}";
        for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size())) text.replace(at, placeholder.size(), value);
    }
    return text;
}

}  // namespace vertex::licence
