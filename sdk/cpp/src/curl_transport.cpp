// The transport on Linux and macOS: libcurl, HTTPS verified against the system's trust store.
#include <curl/curl.h>

#include <cctype>
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

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* response = static_cast<HttpResponse*>(user);
    std::string line(data, size * count);
    const auto colon = line.find(':');
    if (colon == std::string::npos) return size * count;
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    const auto first = value.find_first_not_of(" \t");
    const auto last = value.find_last_not_of(" \t\r\n");
    value = first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
    if (name == "licence-signature") response->signature = value;
    if (name == "retry-after") response->retry_after_seconds = std::strtoll(value.c_str(), nullptr, 10);
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
};

}  // namespace

std::shared_ptr<Transport> default_transport() { return std::make_shared<CurlTransport>(); }

}  // namespace vertex::licence
