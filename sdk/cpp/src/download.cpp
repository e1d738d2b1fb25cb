// A release saved to disk and believed only when its bytes hash to the signed SHA-256: streamed to
// "<path>.part" and hashed as it arrives with libsodium's incremental SHA-256 (the file is never
// whole in memory), compared in constant time, renamed into place when it matches and removed when
// it does not. A ".part" left by a transfer cut off is hashed again from disk and continued with
// `Range` from its end.
#include "download.hpp"

#include <sodium.h>

#include <array>
#include <fstream>
#include <system_error>

namespace vertex::licence {

DownloadStatus Transport::get(const std::string&, std::int64_t, DownloadSink&, std::chrono::milliseconds) { return {}; }

namespace {

/** The ".part" file: what is on disk, hashed, and what arrives, appended and hashed. */
class VerifyingFile final : public DownloadSink {
public:
    VerifyingFile(std::filesystem::path part, std::int64_t expected) : part_(std::move(part)), expected_(expected) {
        crypto_hash_sha256_init(&hash_);
        std::ifstream in(part_, std::ios::binary);
        std::array<char, 64 * 1024> buffer{};
        while (in && held_ < expected_) {
            in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            take(buffer.data(), static_cast<std::size_t>(in.gcount()));
        }
        // Longer than the release: not a part of it; start again.
        if (held_ >= expected_ && expected_ > 0) restart();
        resumed_from_ = held_;
    }

    bool begin(int status, std::int64_t first_byte) override {
        accepted_ = status == 200 || (status == 206 && first_byte == held_);
        if (!accepted_) return false;
        // A whole file answered (the server ignored the range, or there was none): from the start.
        if (status == 200 && held_ > 0) restart();
        out_.open(part_, std::ios::binary | std::ios::app);
        return static_cast<bool>(out_);
    }

    bool write(const char* data, std::size_t size) override {
        if (held_ + static_cast<std::int64_t>(size) > expected_) return too_large_ = true, false;
        out_.write(data, static_cast<std::streamsize>(size));
        if (!out_) return io_failed_ = true, false;
        take(data, size);
        return true;
    }

    /** Closes the file and tells whether its bytes are `sha256_hex`, compared in constant time. */
    bool matches(const std::string& sha256_hex) {
        out_.close();
        std::array<unsigned char, crypto_hash_sha256_BYTES> got{};
        std::array<unsigned char, crypto_hash_sha256_BYTES> signed_digest{};
        std::size_t length = 0;
        crypto_hash_sha256_final(&hash_, got.data());
        return sodium_hex2bin(signed_digest.data(), signed_digest.size(), sha256_hex.data(), sha256_hex.size(), nullptr, &length, nullptr) == 0 &&
               length == signed_digest.size() && sodium_memcmp(got.data(), signed_digest.data(), got.size()) == 0;
    }

    void close() { out_.close(); }
    std::int64_t held() const { return held_; }
    std::int64_t resumed_from() const { return resumed_from_; }
    bool accepted() const { return accepted_; }
    bool too_large() const { return too_large_; }
    bool io_failed() const { return io_failed_ || (out_.is_open() && !out_); }

private:
    void take(const char* data, std::size_t size) {
        crypto_hash_sha256_update(&hash_, reinterpret_cast<const unsigned char*>(data), size);
        held_ += static_cast<std::int64_t>(size);
    }
    void restart() {
        std::error_code ignored;
        std::filesystem::remove(part_, ignored);
        crypto_hash_sha256_init(&hash_);
        held_ = 0;
    }

    std::filesystem::path part_;
    std::int64_t expected_;
    crypto_hash_sha256_state hash_{};
    std::ofstream out_;
    std::int64_t held_ = 0;
    std::int64_t resumed_from_ = 0;
    bool accepted_ = false;
    bool too_large_ = false;
    bool io_failed_ = false;
};

/** A path in UTF-8 for a message, whatever the language version makes u8string() return. */
std::string utf8(const std::filesystem::path& path) {
    const auto text = path.u8string();
    return std::string(text.begin(), text.end());
}

DownloadResult failed(DownloadError error, std::string message, int status, std::int64_t resumed_from) {
    DownloadResult result;
    result.error = error;
    result.message = std::move(message);
    result.status = status;
    result.resumed_from = resumed_from;
    return result;
}

}  // namespace

DownloadResult download_release(Transport& transport, const Release& release, const std::filesystem::path& path, std::chrono::milliseconds stall,
                                const Verifier& words) {
    if (sodium_init() < 0) return failed(DownloadError::io, words.say("download.io", {{"detail", "libsodium could not be initialised"}}), 0, 0);
    std::filesystem::path part = path;
    part += ".part";
    VerifyingFile file(part, release.size);
    const std::int64_t from = file.resumed_from();
    const DownloadStatus got = release.size > from ? transport.get(release.url, from, file, stall) : DownloadStatus{200, file.begin(200, 0)};
    std::error_code ignored;
    if (file.too_large()) {
        file.close();
        std::filesystem::remove(part, ignored);
        return failed(DownloadError::too_large, words.say("download.too-large"), got.status, from);
    }
    if (file.io_failed()) return failed(DownloadError::io, words.say("download.io", {{"detail", utf8(part)}}), got.status, from);
    if (got.status == 0) return failed(DownloadError::unreachable, words.say("download.unreachable"), 0, from);
    if (!file.accepted()) {
        std::string message = words.say("download.status", {{"status", std::to_string(got.status)}});
        if (got.status == 403) message += " " + words.say("download.link-expired");
        return failed(DownloadError::status, std::move(message), got.status, from);
    }
    if (!got.complete || file.held() != release.size) {
        file.close();
        return failed(DownloadError::unreachable, words.say("download.cut-off"), got.status, from);
    }
    if (!file.matches(release.sha256)) {
        std::filesystem::remove(part, ignored);
        return failed(DownloadError::checksum, words.say("download.checksum"), got.status, from);
    }
    std::error_code moved;
    std::filesystem::rename(part, path, moved);
    if (moved) return failed(DownloadError::io, words.say("download.io", {{"detail", moved.message()}}), got.status, from);
    DownloadResult done;
    done.status = got.status;
    done.resumed_from = from;
    done.path = std::filesystem::absolute(path, ignored);
    if (done.path.empty()) done.path = path;
    done.message = words.say("download.done", {{"version", release.version}, {"path", utf8(done.path)}});
    return done;
}

}  // namespace vertex::licence
