// The transport on Linux and macOS: libcurl, HTTPS verified against the system's trust store; a
// download's bytes are handed on as they arrive.
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>
#include <stdexcept>

#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

// The answer is a few hundred bytes; anything far larger is not the licence API.
constexpr std::size_t max_body = 64 * 1024;

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* body = static_cast<std::string*>(user);
    if (body->size() + size * count > max_body) return 0;
    body->append(data, size * count);
    return size * count;
}

/** Lowercase `name` and trimmed `value` of a header line, or nullopt for a line that is none. */
std::optional<std::pair<std::string, std::string>> header_of(const char* data, std::size_t size) {
    std::string line(data, size);
    const auto colon = line.find(':');
    if (colon == std::string::npos) return std::nullopt;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    const auto first = value.find_first_not_of(" \t");
    const auto last = value.find_last_not_of(" \t\r\n");
    value = first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
    return std::pair{std::move(name), std::move(value)};
}

/** A download in flight: the sink learns the status (and the range's start) before any byte. */
struct Download {
    CURL* curl = nullptr;
    DownloadSink* sink = nullptr;
    std::int64_t first_byte = -1;
    bool begun = false;
    bool accepted = false;

    void begin() {
        if (begun) return;
        begun = true;
        long status = 0;
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        accepted = sink->begin(static_cast<int>(status), first_byte);
    }
};

std::size_t on_download_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* download = static_cast<Download*>(user);
    // Each response (a 100 Continue, a redirect) starts with its status line.
    if (size * count >= 5 && std::string_view(data, 5) == "HTTP/") download->first_byte = -1;
    const auto header = header_of(data, size * count);
    // "bytes 1048576-2097151/4194304": where the bytes of a 206 start.
    if (header && header->first == "content-range" && header->second.rfind("bytes ", 0) == 0) download->first_byte = std::strtoll(header->second.c_str() + 6, nullptr, 10);
    return size * count;
}

std::size_t on_download_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* download = static_cast<Download*>(user);
    download->begin();
    return download->accepted && download->sink->write(data, size * count) ? size * count : 0;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* response = static_cast<HttpResponse*>(user);
    if (const auto header = header_of(data, size * count)) {
        if (header->first == "licence-signature") response->signature = header->second;
        if (header->first == "retry-after") response->retry_after_seconds = std::strtoll(header->second.c_str(), nullptr, 10);
    }
    return size * count;
}

class CurlTransport final : public Transport {
public:
    // libcurl counts its own initialisations; each transport holds one for its lifetime.
    CurlTransport() {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw std::runtime_error("libcurl could not be initialised");
    }
    ~CurlTransport() override { curl_global_cleanup(); }
    CurlTransport(const CurlTransport&) = delete;
    CurlTransport& operator=(const CurlTransport&) = delete;

    HttpResponse post_json(const std::string& url, const std::string& body, std::chrono::milliseconds timeout) override {
        HttpResponse response;
        CURL* curl = curl_easy_init();
        if (!curl) return response;
        curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
        curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
        curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
        if (curl_easy_perform(curl) == CURLE_OK) {
            long status = 0;
            curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
            response.status = static_cast<int>(status);
        } else {
            response = HttpResponse{};
        }
        curl_slist_free_all(headers);
        curl_easy_cleanup(curl);
        return response;
    }

    DownloadStatus get(const std::string& url, std::int64_t from, DownloadSink& sink, std::chrono::milliseconds stall) override {
        DownloadStatus result;
        Download download{curl_easy_init(), &sink};
        if (!download.curl) return result;
        const std::string range = std::to_string(from) + "-";
        curl_easy_setopt(download.curl, CURLOPT_URL, url.c_str());
        if (from > 0) curl_easy_setopt(download.curl, CURLOPT_RANGE, range.c_str());
        // No overall timeout: a large file takes as long as it takes, but not a stalled one.
        curl_easy_setopt(download.curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(stall.count()));
        curl_easy_setopt(download.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(download.curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(stall.count() / 1000)));
        curl_easy_setopt(download.curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(download.curl, CURLOPT_WRITEFUNCTION, on_download_body);
        curl_easy_setopt(download.curl, CURLOPT_WRITEDATA, &download);
        curl_easy_setopt(download.curl, CURLOPT_HEADERFUNCTION, on_download_header);
        curl_easy_setopt(download.curl, CURLOPT_HEADERDATA, &download);
        const CURLcode code = curl_easy_perform(download.curl);
        long status = 0;
        curl_easy_getinfo(download.curl, CURLINFO_RESPONSE_CODE, &status);
        // An answer without a body (a 403 with none, an empty file) still tells the sink its status.
        if (status != 0) download.begin();
        result.status = static_cast<int>(status);
        result.complete = code == CURLE_OK && download.accepted;
        curl_easy_cleanup(download.curl);
        return result;
    }
};

}  // namespace

std::shared_ptr<Transport> default_transport() { return std::make_shared<CurlTransport>(); }

}  // namespace vertex::licence
