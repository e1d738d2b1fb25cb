// The shop's licence check for C++ programs: one call, `client.check(key)`, whose answer is believed
// only after its Ed25519 signature (with the public key compiled into the program), nonce, key and
// PC have been checked; a VALID answer's signed lease then keeps the program working offline while
// the clock has not been set back. The contract is docs/licence-api.md in the shop's repository.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vertex::licence {

/** What the program does next: run (valid), stop (denied, tampered), run on its lease or stop
 *  (offline: the lease already decided), or fix its own call (invalid_request: a programming error,
 *  never an outage). */
enum class Outcome { valid, denied, offline, tampered, invalid_request };

/** The code of a signed answer (none when there was no signed verdict): the licence's, or, for
 *  deactivate(), released and too_soon. `other`: a code this SDK does not know yet (the program
 *  stops; `api_code` has it). */
enum class Code {
    none,
    valid,
    not_found,
    not_activated,
    expired,
    suspended,
    revoked,
    banned,
    hwid_mismatch,
    wrong_product,
    released,
    too_soon,
    other,
};

/** Why there is no verdict (offline), why an answer was refused as an attack (tampered). */
enum class Reason {
    none,
    // offline: no signed verdict came back
    unreachable,
    rate_limited,
    server_error,
    unexpected_status,
    // offline: the stored lease could not stand in
    no_lease,
    lease_expired,
    // tampered
    signature,
    nonce,
    key,
    hwid,
    stale,
    rollback,
    channel,
};

/** "valid", "denied", "offline", "tampered", "invalid-request". */
std::string_view to_string(Outcome outcome);
/** "VALID", "REVOKED"… as the API writes them; "" for none, "OTHER" for other. */
std::string_view to_string(Code code);
/** "unreachable", "no-lease", "rollback"… as the API document writes them; "" for none. */
std::string_view to_string(Reason reason);

/**
 * Every sentence the SDK gives people, by key ("denied.REVOKED", "offline.unreachable",
 * "release.up-to-date"…; docs/licence-sdks.md lists them). A program in another language sets its
 * own in Config::messages: an entry there replaces the English one with the same key. `{status}`,
 * `{version}`, `{channel}`, `{path}` and `{detail}` are filled in where the key has them.
 */
using Messages = std::map<std::string, std::string, std::less<>>;

/** The English sentences, the defaults. */
const Messages& english_messages();

struct Result {
    Outcome outcome = Outcome::offline;
    Code code = Code::none;
    Reason reason = Reason::none;
    /** When the lease decided (valid from the lease, or offline): why no signed verdict came
     *  (unreachable, rate_limited, server_error, unexpected_status). none when the shop answered. */
    Reason network = Reason::none;
    /** The code as the server wrote it (VALID, REVOKED…), or the API's error code (RATE_LIMITED,
     *  INVALID_REQUEST…): for logs, and for codes newer than this SDK. */
    std::string api_code;
    /** invalid_request: the request field the server named (key, hwid, channel…), or empty. */
    std::string field;
    /** A short sentence for the program's user (Config::messages). */
    std::string message;
    /** Whether the stored answer decided (the shop could not be reached): a valid lease, or a
     *  signed refusal kept from an earlier check. */
    bool from_lease = false;

    // The licence's terms, from a verified answer (empty or zero otherwise).
    std::string product;
    std::string plan;
    /** When the licence ends, in milliseconds since the epoch; nullopt for lifetime keys. Read
     *  from valid answers and from signed refusals that name the licence (EXPIRED). */
    std::optional<std::int64_t> expires_at_ms;
    /** Where the licence's owner renews it (a link signed by the shop, needing no sign-in), or
     *  empty when the licence cannot be renewed (lifetime keys, refunded or revoked licences). */
    std::string renew_url;
    /** Until when the program may work offline on this answer (ms since the epoch), or 0. */
    std::int64_t lease_until_ms = 0;
    /** The server's signed time for this answer (ms since the epoch), or 0. */
    std::int64_t issued_at_ms = 0;
    /** When to check again, as the server suggests (the heartbeat), in seconds. */
    std::int64_t recheck_after_seconds = 0;
    /** 429: how long the server asked to wait, in seconds. */
    std::int64_t retry_after_seconds = 0;
    std::vector<std::string> entitlements;

    bool ok() const { return outcome == Outcome::valid; }
    /** Whether the licence grants `name` ("beta", "configs"); false unless valid. */
    bool has_entitlement(std::string_view name) const;
};

/** An HTTP exchange as the SDK needs it. status 0: no answer at all (no network, timeout). */
struct HttpResponse {
    int status = 0;
    std::string body;
    /** The Licence-Signature header, empty when absent. */
    std::string signature;
    std::int64_t retry_after_seconds = 0;
};

/** Where a download's bytes go as they arrive, never gathered in memory. */
class DownloadSink {
public:
    virtual ~DownloadSink() = default;
    /** Before the first byte: the status, and for a 206 where its bytes start (Content-Range);
     *  false stops the transfer (a status the sink does not take). */
    virtual bool begin(int status, std::int64_t first_byte) = 0;
    /** The next bytes; false stops the transfer. */
    virtual bool write(const char* data, std::size_t size) = 0;
};

/** How a download ended: status 0 when no answer came; complete when every byte arrived. */
struct DownloadStatus {
    int status = 0;
    bool complete = false;
};

/** How the SDK reaches the shop. The default is libcurl (Linux, macOS) or WinHTTP (Windows). */
class Transport {
public:
    virtual ~Transport() = default;
    virtual HttpResponse post_json(const std::string& url, const std::string& body, std::chrono::milliseconds timeout) = 0;
    /** GETs `url` into `sink`, from byte `from` (a `Range` request when above 0). `stall` ends a
     *  transfer that receives nothing for that long (a large file may take far longer in all).
     *  A transport that cannot download (a program's own, for checks only) answers status 0. */
    virtual DownloadStatus get(const std::string& url, std::int64_t from, DownloadSink& sink, std::chrono::milliseconds stall);
};

/** The platform's transport: WinHTTP on Windows, libcurl elsewhere. */
std::shared_ptr<Transport> default_transport();

/** A signed answer exactly as it came: body bytes and signature. */
struct StoredLease {
    std::string body;
    std::string signature;
};

/**
 * Where the program keeps signed answers between runs: the lease (the last answer about this
 * key: a VALID one to work offline on, or the signed refusal that ended it) and the newest answer
 * seen, whose signed time an older lease put back cannot pass. Keep the two apart (a lease file
 * copied back then meets the newer time); a store that keeps no newest answer still works, without
 * that defence.
 */
class LeaseStore {
public:
    virtual ~LeaseStore() = default;
    virtual std::optional<StoredLease> read() = 0;
    virtual void write(const StoredLease& lease) = 0;
    virtual void clear() = 0;
    virtual std::optional<StoredLease> read_newest() { return std::nullopt; }
    virtual void write_newest(const StoredLease&) {}
};

/** The lease in one file and the newest answer in a second beside it ("<path>.newest"), each
 *  written whole and replaced atomically. Editing either gains nothing: both are signed. */
class FileLeaseStore final : public LeaseStore {
public:
    explicit FileLeaseStore(std::filesystem::path path);
    std::optional<StoredLease> read() override;
    void write(const StoredLease& lease) override;
    void clear() override;
    std::optional<StoredLease> read_newest() override;
    void write_newest(const StoredLease& answer) override;

private:
    std::filesystem::path path_;
    std::filesystem::path newest_;
};

/** The program's clocks at the moment it judges (milliseconds since the epoch). */
struct ClockReading {
    std::int64_t now_ms = 0;
    /** The newest signed issuedAt the program has trusted, if any. */
    std::optional<std::int64_t> trusted_ms;
    /** How far the wall clock moved against the monotonic clock since then (negative: set back). */
    std::int64_t drift_ms = 0;
};

/** A local clock earlier than the trusted time by more than this was set back. */
inline constexpr std::int64_t clock_skew_ms = 5 * 60 * 1000;
/** A wall clock that falls behind the monotonic clock by more than this while the program runs was set back. */
inline constexpr std::int64_t max_backward_drift_ms = 2 * 60 * 1000;

/** What the program sent (or, offline, asks about). */
struct Question {
    std::string key;
    std::string hwid;
    std::string nonce;
};

/** A release the shop offers this licence: from a verified answer, so every field is the shop's. */
struct Release {
    std::string version;
    std::string channel;
    /** Release notes, Markdown. */
    std::string notes;
    std::string file_name;
    std::int64_t size = 0;
    /** The file's SHA-256, 64 lowercase hex digits: what download_release checks the bytes against. */
    std::string sha256;
    std::int64_t published_at_ms = 0;
    /** A download link signed by the shop, needing no session, until url_expires_at_ms. */
    std::string url;
    std::int64_t url_expires_at_ms = 0;
};

/** Why latest_release offers nothing to download. */
enum class ReleaseError {
    none,
    /** The newest release is not newer than the program's own version (Config::version). */
    up_to_date,
    /** Nothing is published on the channel for this licence. */
    no_release,
    /** The plan does not include the channel. */
    channel_not_allowed,
    /** The licence's own verdict (see LatestRelease::licence). */
    denied,
    offline,
    tampered,
    invalid_request,
    /** A signed answer without a usable release. */
    malformed,
};

/** "up-to-date", "no-release", "channel-not-allowed", "denied"…; "" for none. */
std::string_view to_string(ReleaseError error);

/** The answer to "what is the newest release on this channel for my licence?". */
struct LatestRelease {
    /** The licence's verdict, checked exactly as check() checks it (never from the lease: an
     *  update needs the shop). */
    Result licence;
    /** The newest release the licence may have on the channel, when the shop offers one (also
     *  with up_to_date, to show what the program already runs). */
    std::optional<Release> release;
    ReleaseError error = ReleaseError::none;
    /** A short sentence for the program's user. */
    std::string message;

    /** Whether there is a newer release to download. */
    bool ok() const { return error == ReleaseError::none && release.has_value(); }
};

/** The entitlement a channel needs ("beta" needs "beta"; "stable" none). */
std::string_view channel_entitlement(std::string_view channel);

/**
 * Semantic-version order (semver.org, section 11: numbers compared as numbers, a pre-release
 * before its release, build metadata ignored): negative when `a` comes before `b`, 0 when they are
 * the same version, positive after. A version that is not semantic compares as text.
 */
int compare_versions(std::string_view a, std::string_view b);

/** Why download_release did not put the file in place. */
enum class DownloadError {
    none,
    /** No answer, or cut off: the partial file is kept for a resume. */
    unreachable,
    /** An HTTP refusal, e.g. 403 for an expired link. */
    status,
    too_large,
    /** The bytes are not the signed SHA-256: nothing is left at the path. */
    checksum,
    /** The disk. */
    io,
};

/** "unreachable", "status", "too-large", "checksum", "io"; "" for none. */
std::string_view to_string(DownloadError error);

/** How download_release ended. */
struct DownloadResult {
    DownloadError error = DownloadError::none;
    std::string message;
    /** Where the verified file now is (empty unless ok). */
    std::filesystem::path path;
    /** The HTTP status of the last request, or 0. */
    int status = 0;
    /** Bytes already on disk from an earlier attempt, asked for again only from there. */
    std::int64_t resumed_from = 0;

    bool ok() const { return error == DownloadError::none; }
};

/** How a deactivate() ended. */
struct Deactivation {
    /** valid (code released): the PC is released. denied: the shop refused (hwid_mismatch when
     *  this PC does not hold the key, not_found, banned, revoked, suspended, or too_soon while the
     *  key's move allowance is spent). offline, tampered, invalid_request: as for a check. */
    Result result;
    /** TOO_SOON: when the key's PC can next be released or reset (ms since the epoch), else 0. */
    std::int64_t next_release_at_ms = 0;

    bool ok() const { return result.ok(); }
};

/**
 * The checks alone, with no network, storage or clock of their own: given what was asked, what
 * came back (or what was stored) and the clocks, what the program must conclude. The client
 * drives it; the conformance vectors test it case by case.
 */
class Verifier {
public:
    /** `public_key_base64`: the shop's 32-byte Ed25519 public key. Throws std::invalid_argument. */
    explicit Verifier(std::string_view public_key_base64, std::string product = {}, Messages messages = {});

    Result judge_answer(const Question& sent, const HttpResponse& response, const ClockReading& clock) const;
    /** The stored answer, when no signed verdict could be had: a VALID lease in force (valid), a
     *  signed refusal kept for this key and PC (denied), or why it cannot stand in. */
    Result judge_lease(const Question& asked, const std::optional<StoredLease>& stored, const ClockReading& clock) const;
    /** The answer to releases/latest for `channel`: judge_answer's checks, then the channel echoed
     *  (another channel's answer is tampered, reason "channel"), then the release it offers, then
     *  whether it is newer than `current_version` (empty: any release is). */
    LatestRelease judge_release(const Question& sent, std::string_view channel, const HttpResponse& response, const ClockReading& clock,
                                std::string_view current_version = {}) const;
    /** The answer to licences/deactivate: judge_answer's checks, then whether the PC was released. */
    Deactivation judge_deactivation(const Question& sent, const HttpResponse& response, const ClockReading& clock) const;
    /** The signed issuedAt of a genuine stored answer (ms since the epoch), or nullopt. */
    std::optional<std::int64_t> signed_time(const StoredLease& stored) const;

    /** The sentence for `key` from the program's messages, else the English one; `{name}` filled from `values`. */
    std::string say(std::string_view key, const std::map<std::string, std::string, std::less<>>& values = {}) const;

private:
    std::array<unsigned char, 32> public_key_{};
    std::string product_;
    Messages messages_;
};

/**
 * Whether `text` is base64 of a 32-byte key (44 characters, the last one "=", the bits past the
 * 32 bytes zero). constexpr, so that a key compiled in is checked when the program is built:
 *
 *     static_assert(vertex::licence::is_public_key(VERTEX_SHOP_PUBLIC_KEY), "...");
 */
constexpr bool is_public_key(std::string_view text) {
    if (text.size() != 44 || text[43] != '=') return false;
    for (std::size_t i = 0; i < 43; ++i) {
        const char c = text[i];
        const bool base64 = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (!base64) return false;
    }
    // 43 characters carry 258 bits: the last character's two low bits lie past the key.
    const char last = text[42];
    const int value = last >= 'A' && last <= 'Z'   ? last - 'A'
                      : last >= 'a' && last <= 'z' ? last - 'a' + 26
                      : last >= '0' && last <= '9' ? last - '0' + 52
                      : last == '+'                ? 62
                                                   : 63;
    return value % 4 == 0;
}

/** The machine's identity sources in the order the SDK prefers them, each as "<kind>:<value>":
 *  the firmware's system UUID ("smbios:…", Windows and Linux) when the firmware gives a real one,
 *  then the installation's own id ("windows:<MachineGuid>:<volume serial>", "linux:<machine-id>",
 *  "macos:<host UUID>"). Empty when the platform gives none. */
std::vector<std::string> machine_sources();

/** The hardware id sent for `source`: HMAC-SHA256 of it keyed with `app_salt`, in hex. The same in
 *  every SDK (sdk/vectors/machine-id-vectors.json). */
std::string hardware_id(std::string_view app_salt, std::string_view source);

/** The firmware UUID in the SDK's form: "smbios:" and the lowercase UUID, or nullopt for none or a
 *  placeholder (all zeros, all ones, a board maker's 03000200-0400-0500-0006-000700080009). */
std::optional<std::string> firmware_source(std::string_view uuid);

/** The hardware id from this machine's preferred source (machine_sources()), never sent raw.
 *  Throws std::runtime_error when the platform has none. */
std::string machine_id(std::string_view app_salt);

/** The computer's name as its owner knows it, cut to what the API accepts (printable ASCII, 64). */
std::string device_name();

struct Config {
    /** The shop's address, e.g. "https://shop.example.com". */
    std::string base_url;
    /** The shop's public key (base64), compiled in (check it with is_public_key in a static_assert):
     *  never read from a file or an answer. */
    std::string public_key;
    /** This program's product as the shop names it; keys for other products are denied. Optional. */
    std::string product;
    /** This program's own version ("1.4.0"): latest_release answers up_to_date unless the shop's
     *  newest is newer. Empty: every release counts as new. */
    std::string version;
    /** Where the last answer is kept for offline use; empty keeps it in memory only. */
    std::filesystem::path lease_file;
    /** Overrides the hardware id; empty uses machine_id(hwid_salt) (or, when the lease file was
     *  written for another of this machine's sources, that one). */
    std::string hwid;
    /** Salt for the default hardware id, so that two programs on one PC send unrelated ids. */
    std::string hwid_salt = "vertex-licence";
    /** The PC's name the key's owner sees in the hub; empty sends none. */
    std::string device = device_name();
    std::chrono::milliseconds timeout{10000};
    /** Sentences that replace the English ones with the same key (english_messages()). */
    Messages messages;
    /** Overrides the transport (tests, or the program's own HTTP stack). */
    std::shared_ptr<Transport> transport;
    /** Overrides the lease store (e.g. the registry); takes precedence over lease_file. */
    std::shared_ptr<LeaseStore> lease_store;
};

/** The shortest heartbeat interval the client accepts. */
inline constexpr std::chrono::seconds min_heartbeat_interval{5};

class Client {
public:
    /** Throws std::invalid_argument for an empty base URL or a public key that is not 32 bytes. */
    explicit Client(Config config);
    /** Never waits for a check in flight: a heartbeat still asking the shop finishes on its own. */
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    /** Checks `key` on this PC. Safe to call from any thread. */
    Result check(const std::string& key);

    /** The newest release `key` may have on `channel` ("stable" or "beta"), from a signed answer
     *  checked as check() checks its own, compared with Config::version. Safe to call from any thread. */
    LatestRelease latest_release(const std::string& key, const std::string& channel = "stable");

    /**
     * Downloads `release` to `path`: streamed to `path` + ".part" and hashed as it arrives (never
     * whole in memory), renamed into place only when its SHA-256 is the signed one, removed when it
     * is not. A ".part" left by a download cut off is resumed with `Range`. An existing file at
     * `path` is replaced only by a verified one.
     */
    DownloadResult download_release(const Release& release, const std::filesystem::path& path);

    /**
     * Releases this PC: the shop frees the key for the next PC that checks it (no support
     * ticket), when this PC is the one it is bound to. It spends the key's move allowance, the same
     * one as the hub's Reset PC. The stored lease ends; a later check on this PC binds it again.
     */
    Deactivation deactivate(const std::string& key);

    /**
     * Re-checks `key` in the background at the interval the server suggests (or `interval`, no
     * shorter than min_heartbeat_interval) and calls `on_change` (on the heartbeat's thread) when
     * the outcome or code changes: a refunded key stops a running program within minutes.
     * `on_change` may call stop_heartbeat() (or destroy the client).
     */
    void start_heartbeat(std::string key, std::function<void(const Result&)> on_change, std::optional<std::chrono::seconds> interval = std::nullopt);
    /** After it returns, on_change is not called again. Waits for an on_change running on another
     *  thread, never for a check in flight (that check ends on its own, unreported). */
    void stop_heartbeat();

    /** The hardware id this client sends. */
    const std::string& hwid() const;

private:
    struct State;
    struct Heartbeat;
    std::shared_ptr<State> state_;
    std::shared_ptr<Heartbeat> heartbeat_;
};

}  // namespace vertex::licence
