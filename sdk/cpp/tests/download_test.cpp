// The program's auto-update end to end: latest_release through the client (the request it sends,
// the signed answer it checks), then download_release against a small local HTTP server over real
// sockets and libcurl: a good file, a corrupted one (refused, nothing left at the path), one cut
// off and resumed with Range, an expired link, and more bytes than the release.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sodium.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "check.hpp"
#include "vertex/licence.hpp"

using namespace vertex::licence;

namespace {

/** One file over HTTP/1.1, with `Range: bytes=N-`, and the faults a download meets. */
class FileServer {
public:
    std::string body;
    /** Serve this instead of `body` (a corrupted copy). */
    std::string served;
    /** Close the connection after this many body bytes (0: never). */
    std::size_t cut_after = 0;
    int status = 200;
    std::string last_range;

    FileServer() {
        listener_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
        listen(listener_, 8);
        socklen_t length = sizeof address;
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~FileServer() {
        stop_ = true;
        shutdown(listener_, SHUT_RDWR);
        close(listener_);
        thread_.join();
    }
    FileServer(const FileServer&) = delete;
    FileServer& operator=(const FileServer&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/releases/1/download?expires=1&signature=x"; }
    std::string range() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return last_range;
    }

private:
    void serve() {
        while (!stop_) {
            const int connection = accept(listener_, nullptr, nullptr);
            if (connection < 0) return;
            answer(connection);
            close(connection);
        }
    }

    void answer(int connection) {
        std::string request;
        char buffer[4096];
        while (request.find("\r\n\r\n") == std::string::npos) {
            const ssize_t got = recv(connection, buffer, sizeof buffer, 0);
            if (got <= 0) return;
            request.append(buffer, static_cast<std::size_t>(got));
        }
        std::string range;
        if (const auto at = request.find("Range: bytes="); at != std::string::npos) range = request.substr(at + 13, request.find("\r\n", at) - at - 13);
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            last_range = range;
        }
        const std::string& file = served.empty() ? body : served;
        std::string head;
        std::size_t from = 0;
        if (status != 200) {
            head = "HTTP/1.1 " + std::to_string(status) + " Refused\r\nContent-Length: 0\r\n";
            send_all(connection, head + "Connection: close\r\n\r\n");
            return;
        }
        if (!range.empty()) {
            from = std::stoul(range);
            head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(from) + "-" + std::to_string(file.size() - 1) + "/" + std::to_string(file.size()) + "\r\n";
        } else {
            head = "HTTP/1.1 200 OK\r\n";
        }
        head += "Content-Length: " + std::to_string(file.size() - from) + "\r\nConnection: close\r\n\r\n";
        send_all(connection, head);
        const std::size_t end = cut_after > 0 ? std::min(file.size(), from + cut_after) : file.size();
        send_all(connection, file.substr(from, end - from));
    }

    static void send_all(int connection, const std::string& data) {
        std::size_t sent = 0;
        while (sent < data.size()) {
            const ssize_t wrote = send(connection, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
            if (wrote <= 0) return;
            sent += static_cast<std::size_t>(wrote);
        }
    }

    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::thread thread_;
};

std::string sha256_hex(const std::string& bytes) {
    unsigned char digest[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    char hex[sizeof digest * 2 + 1];
    sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
    return hex;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string iso(std::int64_t ms) {
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S.000Z", &parts);
    return text;
}

/** The shop's releases/latest, signed with the vectors' test key, offering the file server's file;
 *  downloads go through the platform's transport (libcurl). */
class ReleaseShop final : public Transport {
public:
    ReleaseShop(const std::string& seed_hex, std::string url, std::string sha256, std::size_t size) : url_(std::move(url)), sha256_(std::move(sha256)), size_(size), signer_(seed_hex) {}
    std::string public_key_base64() const { return signer_.public_key_base64(); }
    std::string entitlements = "\"config-library\"";
    std::string last_url;
    std::string last_request;

    HttpResponse post_json(const std::string& url, const std::string& body, std::chrono::milliseconds) override {
        last_url = url;
        last_request = body;
        const auto request = json::parse(body);
        const std::string channel = request->find("channel")->string;
        const bool allowed = channel == "stable" || entitlements.find("\"beta\"") != std::string::npos;
        const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        const std::string release = allowed ? "{\"version\":\"1.4.0\",\"channel\":" + json::quote(channel) + ",\"notes\":\"Faster\",\"fileName\":\"Vertex.exe\",\"size\":" +
                                                  std::to_string(size_) + ",\"sha256\":\"" + sha256_ + "\",\"publishedAt\":\"" + iso(now) + "\",\"url\":" + json::quote(url_) +
                                                  ",\"urlExpiresAt\":\"" + iso(now + 900000) + "\"}"
                                            : "null";
        const std::string answer = "{\"valid\":true,\"code\":\"VALID\",\"key\":" + json::quote(request->find("key")->string) + ",\"hwid\":" + json::quote(request->find("hwid")->string) +
                                   ",\"nonce\":" + json::quote(request->find("nonce")->string) + ",\"issuedAt\":\"" + iso(now) +
                                   "\",\"ttl\":600,\"licence\":{\"product\":\"Vertex Rust\",\"plan\":\"weekly\",\"activatedAt\":null,\"expiresAt\":null,\"entitlements\":[" + entitlements +
                                   "]},\"lease\":{\"until\":\"" + iso(now + 3600000) + "\"},\"channel\":" + json::quote(channel) + ",\"release\":" + release + "}";
        return HttpResponse{200, answer, signer_.sign(answer), 0};
    }

    DownloadStatus get(const std::string& url, std::int64_t from, DownloadSink& sink, std::chrono::milliseconds stall) override {
        return http_->get(url, from, sink, stall);
    }

private:
    std::shared_ptr<Transport> http_ = default_transport();
    std::string url_;
    std::string sha256_;
    std::size_t size_;
    testing::TestSigner signer_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || sodium_init() < 0) return 2;
    const json::Value vectors = testing::read_vectors(argv[1]);
    testing::Tally tally;
    FileServer server;
    // 300 KB: many reads, and a resume from the middle.
    for (int i = 0; i < 300 * 1024; ++i) server.body += static_cast<char>((i * 31 + 7) & 0xff);
    const auto shop = std::make_shared<ReleaseShop>(vectors.find("testOnlyPrivateKey")->find("seedHex")->string, server.url(), sha256_hex(server.body), server.body.size());

    Config config;
    config.base_url = "https://shop.test/";
    config.public_key = shop->public_key_base64();
    config.transport = shop;
    config.hwid = "TEST-HWID-0123456789abcdef";
    config.timeout = std::chrono::milliseconds{5000};
    Client client(config);

    const LatestRelease latest = client.latest_release("KEY-1", "stable");
    tally.expect(latest.ok() && latest.error == ReleaseError::none && latest.release->version == "1.4.0" && latest.release->sha256 == sha256_hex(server.body), "the newest stable release is offered");
    tally.expect(shop->last_url == "https://shop.test/api/v1/releases/latest", "the client asks releases/latest");
    const auto sent = json::parse(shop->last_request);
    tally.expect(sent && sent->find("channel")->string == "stable" && sent->find("nonce")->string.size() == 32, "the request names the channel and a fresh nonce");
    const LatestRelease beta = client.latest_release("KEY-1", "beta");
    tally.expect(!beta.ok() && beta.error == ReleaseError::channel_not_allowed && beta.licence.ok(), "beta for a plan without beta is refused, the licence still valid");
    shop->entitlements = "\"beta\"";
    tally.expect(client.latest_release("KEY-1", "beta").ok(), "beta for a plan with beta is offered");
    {
        // The program's own version decides whether there is anything to download.
        Config current = config;
        current.version = "1.4.0";
        const LatestRelease same = Client(current).latest_release("KEY-1", "stable");
        tally.expect(!same.ok() && same.error == ReleaseError::up_to_date && same.release && same.message.find("up to date") != std::string::npos,
                     "the same version as the program's is up to date, not downloaded again");
        current.version = "1.4.0-beta.3";
        tally.expect(Client(current).latest_release("KEY-1", "stable").ok(), "a release is newer than its own pre-release");
        current.version = "1.10.0";
        tally.expect(Client(current).latest_release("KEY-1", "stable").error == ReleaseError::up_to_date, "an older release (1.4.0 before 1.10.0) is not offered as an update");
    }

    const std::filesystem::path directory = std::filesystem::temp_directory_path() / ("vertex-download-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory);
    const std::filesystem::path path = directory / "Vertex.exe";
    std::filesystem::path part = path;
    part += ".part";
    const Release& release = *latest.release;

    {
        const DownloadResult good = client.download_release(release, path);
        tally.expect(good.ok() && good.status == 200 && good.resumed_from == 0, "a good file downloads");
        tally.expect(good.path == std::filesystem::absolute(path) && good.message.find(good.path.string()) != std::string::npos, "it says where it saved the file");
        tally.expect(read_file(path) == server.body && !std::filesystem::exists(part), "the file is in place, whole, and no partial file is left");
        std::filesystem::remove(path);
    }
    {
        server.served = server.body;
        server.served[150000] = static_cast<char>(server.served[150000] ^ 1);
        std::ofstream(path) << "the version already installed";
        const DownloadResult corrupted = client.download_release(release, path);
        tally.expect(!corrupted.ok() && corrupted.error == DownloadError::checksum, "a corrupted file is refused");
        tally.expect(read_file(path) == "the version already installed" && !std::filesystem::exists(part), "nothing of it is left, and the file at the path is untouched");
        std::filesystem::remove(path);
        server.served.clear();
    }
    {
        server.cut_after = 100000;
        const DownloadResult cut = client.download_release(release, path);
        tally.expect(!cut.ok() && cut.error == DownloadError::unreachable && !std::filesystem::exists(path), "a download cut off is not put in place");
        tally.expect(std::filesystem::exists(part) && std::filesystem::file_size(part) == 100000, "the bytes that arrived are kept for a resume");
        server.cut_after = 0;
        const DownloadResult resumed = client.download_release(release, path);
        tally.expect(resumed.ok() && resumed.status == 206 && resumed.resumed_from == 100000 && server.range() == "100000-", "the next attempt asks only for the rest, with Range");
        tally.expect(read_file(path) == server.body && !std::filesystem::exists(part), "the resumed file is whole and verified");
        std::filesystem::remove(path);
    }
    {
        server.cut_after = 120000;
        server.served = server.body;
        server.served[10] = static_cast<char>(server.served[10] ^ 1);
        client.download_release(release, path);
        server.cut_after = 0;
        server.served.clear();
        const DownloadResult spoiled = client.download_release(release, path);
        tally.expect(spoiled.error == DownloadError::checksum && !std::filesystem::exists(path) && !std::filesystem::exists(part), "a resume onto corrupted earlier bytes is refused as a whole");
    }
    {
        server.status = 403;
        const DownloadResult expired = client.download_release(release, path);
        tally.expect(expired.error == DownloadError::status && expired.status == 403 && !std::filesystem::exists(path), "an expired link is refused with its status");
        server.status = 200;
    }
    {
        Release smaller = release;
        smaller.size = 1000;
        const DownloadResult larger = client.download_release(smaller, path);
        tally.expect(larger.error == DownloadError::too_large && !std::filesystem::exists(path) && !std::filesystem::exists(part), "more bytes than the release are refused");
    }
    std::filesystem::remove_all(directory);
    return tally.finish();
}
