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
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vertex::licence {

/** What the program does next: run, stop (denied, tampered), or run on its lease (offline). */
enum class Outcome { valid, denied, offline, tampered };

/** "valid", "denied", "offline" or "tampered". */
std::string_view to_string(Outcome outcome);

struct Result {
    Outcome outcome = Outcome::offline;
    /** The server's code: VALID, REVOKED, BANNED, HWID_MISMATCH… (WRONG_PRODUCT is the SDK's own);
     *  offline: the server's error code (RATE_LIMITED, UNAVAILABLE) or empty. */
    std::string code;
    /** Offline: unreachable, rate-limited, server-error, unexpected-status, no-lease, lease-expired.
     *  Tampered: signature, nonce, key, hwid, stale, rollback. Empty otherwise. */
    std::string reason;
    /** A short sentence for the program's user. */
    std::string message;
    /** Valid: whether the stored lease answered (the shop could not be reached). */
    bool from_lease = false;

    // The licence's terms, from a verified answer (empty or zero otherwise).
    std::string product;
    std::string plan;
    /** Milliseconds since the epoch; nullopt for lifetime keys. */
    std::optional<std::int64_t> expires_at_ms;
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

/** The last VALID answer, exactly as signed: all the program needs to work offline. */
struct StoredLease {
    std::string body;
    std::string signature;
};

/** Where the lease is kept between runs. */
class LeaseStore {
public:
    virtual ~LeaseStore() = default;
    virtual std::optional<StoredLease> read() = 0;
    virtual void write(const StoredLease& lease) = 0;
    virtual void clear() = 0;
};

/** A lease kept in one file, written whole and replaced atomically. Editing it gains nothing: the
 *  lease is inside the signed body. */
class FileLeaseStore final : public LeaseStore {
public:
    explicit FileLeaseStore(std::filesystem::path path);
    std::optional<StoredLease> read() override;
    void write(const StoredLease& lease) override;
    void clear() override;

private:
    std::filesystem::path path_;
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

/** The answer to "what is the newest release on this channel for my licence?". */
struct LatestRelease {
    /** The licence's verdict, checked exactly as check() checks it (never from the lease: an
     *  update needs the shop). */
    Result licence;
    /** Set when the licence is valid and the shop offers a release on the channel. */
    std::optional<Release> release;
    /** Empty with a release; otherwise no-release (nothing published on the channel for this
     *  licence), channel-not-allowed (the plan does not include it), denied, offline, tampered
     *  (the licence's own verdict: see `licence`), or malformed (a signed answer without a usable release). */
    std::string error;
    /** A short sentence for the program's user. */
    std::string message;

    bool ok() const { return release.has_value(); }
};

/** The entitlement a channel needs ("beta" needs "beta"; "stable" none). */
std::string_view channel_entitlement(std::string_view channel);

/** How download_release ended. */
struct DownloadResult {
    /** Empty on success; otherwise unreachable (no answer, or cut off: the partial file is kept for
     *  a resume), status (an HTTP refusal, e.g. 403 for an expired link), too-large, checksum (the
     *  bytes are not the signed SHA-256: nothing is left at the path), or io (the disk). */
    std::string error;
    std::string message;
    /** The HTTP status of the last request, or 0. */
    int status = 0;
    /** Bytes already on disk from an earlier attempt, asked for again only from there. */
    std::int64_t resumed_from = 0;

    bool ok() const { return error.empty(); }
};

/**
 * The checks alone, with no network, storage or clock of their own: given what was asked, what
 * came back (or what was stored) and the clocks, what the program must conclude. The client
 * drives it; the conformance vectors test it case by case.
 */
class Verifier {
public:
    /** `public_key_base64`: the shop's 32-byte Ed25519 public key. Throws std::invalid_argument. */
    explicit Verifier(std::string_view public_key_base64, std::string product = {});

    Result judge_answer(const Question& sent, const HttpResponse& response, const ClockReading& clock) const;
    Result judge_lease(const Question& asked, const std::optional<StoredLease>& stored, const ClockReading& clock) const;
    /** The answer to releases/latest for `channel`: judge_answer's checks, then the channel echoed
     *  (another channel's answer is tampered, reason "channel"), then the release it offers. */
    LatestRelease judge_release(const Question& sent, std::string_view channel, const HttpResponse& response, const ClockReading& clock) const;

private:
    std::array<unsigned char, 32> public_key_{};
    std::string product_;
};

/** A hardware id that survives reinstalls, never sent raw: the platform's machine id (Windows:
 *  MachineGuid and the system volume's serial; Linux: /etc/machine-id; macOS: the host UUID),
 *  HMAC-SHA256'd with `app_salt`, in hex. Throws std::runtime_error when the platform has none. */
std::string machine_id(std::string_view app_salt);

/** The computer's name as its owner knows it, cut to what the API accepts (printable ASCII, 64). */
std::string device_name();

struct Config {
    /** The shop's address, e.g. "https://shop.example.com". */
    std::string base_url;
    /** The shop's public key (base64), compiled into the program: never read from a file or an answer. */
    std::string public_key;
    /** This program's product as the shop names it; keys for other products are denied. Optional. */
    std::string product;
    /** Where the last VALID answer is kept for offline use; empty keeps it in memory only. */
    std::filesystem::path lease_file;
    /** Overrides the hardware id; empty uses machine_id(hwid_salt). */
    std::string hwid;
    /** Salt for the default hardware id, so that two programs on one PC send unrelated ids. */
    std::string hwid_salt = "vertex-licence";
    /** The PC's name the key's owner sees in the hub; empty sends none. */
    std::string device = device_name();
    std::chrono::milliseconds timeout{10000};
    /** Overrides the transport (tests, or the program's own HTTP stack). */
    std::shared_ptr<Transport> transport;
    /** Overrides the lease store (e.g. the registry); takes precedence over lease_file. */
    std::shared_ptr<LeaseStore> lease_store;
};

/** The shortest heartbeat interval the client accepts. */
inline constexpr std::chrono::seconds min_heartbeat_interval{5};

class Client {
public:
    explicit Client(Config config);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    /** Checks `key` on this PC. Safe to call from any thread. */
    Result check(const std::string& key);

    /** The newest release `key` may have on `channel` ("stable" or "beta"), from a signed answer
     *  checked as check() checks its own. Safe to call from any thread. */
    LatestRelease latest_release(const std::string& key, const std::string& channel = "stable");

    /**
     * Downloads `release` to `path`: streamed to `path` + ".part" and hashed as it arrives (never
     * whole in memory), renamed into place only when its SHA-256 is the signed one, removed when it
     * is not. A ".part" left by a download cut off is resumed with `Range`. An existing file at
     * `path` is replaced only by a verified one.
     */
    DownloadResult download_release(const Release& release, const std::filesystem::path& path);

    /**
     * Re-checks `key` in the background at the interval the server suggests (or `interval`, no
     * shorter than min_heartbeat_interval) and calls `on_change` (on the heartbeat's thread) when
     * the outcome or code changes: a refunded key stops a running program within minutes.
     */
    void start_heartbeat(std::string key, std::function<void(const Result&)> on_change, std::optional<std::chrono::seconds> interval = std::nullopt);
    void stop_heartbeat();

    /** The hardware id this client sends. */
    const std::string& hwid() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace vertex::licence
