// The transport on Windows: WinHTTP, HTTPS verified by the system, no dependency beyond Windows; a
// download's bytes are handed on as they arrive.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winhttp.h>

#include <memory>
#include <string>
#include <vector>

#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

constexpr std::size_t max_body = 64 * 1024;

std::wstring wide(const std::string& text) {
    const int size = MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
    std::wstring out(static_cast<std::size_t>(size > 0 ? size : 0), L'\0');
    if (size > 0) MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), out.data(), size);
    return out;
}

/** Closes a WinHTTP handle when it goes out of scope. */
struct Handle {
    HINTERNET value = nullptr;
    explicit Handle(HINTERNET handle) : value(handle) {}
    ~Handle() {
        if (value) WinHttpCloseHandle(value);
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    explicit operator bool() const { return value != nullptr; }
};

/** A response header's value in ASCII, or empty. */
std::string header(HINTERNET request, const wchar_t* name) {
    wchar_t value[512] = {};
    DWORD size = sizeof value;
    if (!WinHttpQueryHeaders(request, WINHTTP_QUERY_CUSTOM, name, value, &size, WINHTTP_NO_HEADER_INDEX)) return {};
    std::string out;
    for (DWORD i = 0; i < size / sizeof(wchar_t); ++i) out += static_cast<char>(value[i] < 0x80 ? value[i] : '?');
    return out;
}

/** One request's session, connection and request handles, closed together. */
struct Exchange {
    std::unique_ptr<Handle> session;
    std::unique_ptr<Handle> connection;
    std::unique_ptr<Handle> request;

    /** Opens `verb` `url`; false when the URL or WinHTTP refuses. */
    bool open(const std::string& url, const wchar_t* verb, std::chrono::milliseconds timeout) {
        const std::wstring address = wide(url);
        URL_COMPONENTS parts{};
        parts.dwStructSize = sizeof parts;
        parts.dwHostNameLength = static_cast<DWORD>(-1);
        parts.dwUrlPathLength = static_cast<DWORD>(-1);
        parts.dwExtraInfoLength = static_cast<DWORD>(-1);
        if (!WinHttpCrackUrl(address.c_str(), 0, 0, &parts)) return false;
        const std::wstring host(parts.lpszHostName, parts.dwHostNameLength);
        const std::wstring path = std::wstring(parts.lpszUrlPath, parts.dwUrlPathLength) + std::wstring(parts.lpszExtraInfo, parts.dwExtraInfoLength);

        session = std::make_unique<Handle>(WinHttpOpen(L"vertex-licence/1", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0));
        if (!*session) return false;
        const int ms = static_cast<int>(timeout.count());
        WinHttpSetTimeouts(session->value, ms, ms, ms, ms);
        connection = std::make_unique<Handle>(WinHttpConnect(session->value, host.c_str(), parts.nPort, 0));
        if (!*connection) return false;
        const DWORD flags = parts.nScheme == INTERNET_SCHEME_HTTPS ? WINHTTP_FLAG_SECURE : 0;
        request = std::make_unique<Handle>(WinHttpOpenRequest(connection->value, verb, path.c_str(), nullptr, WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES, flags));
        return static_cast<bool>(*request);
    }

    /** The response's status, or 0. */
    int status() const {
        DWORD status = 0;
        DWORD size = sizeof status;
        if (!WinHttpQueryHeaders(request->value, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER, WINHTTP_HEADER_NAME_BY_INDEX, &status, &size,
                                 WINHTTP_NO_HEADER_INDEX)) {
            return 0;
        }
        return static_cast<int>(status);
    }
};

class WinHttpTransport final : public Transport {
public:
    HttpResponse post_json(const std::string& url, const std::string& body, std::chrono::milliseconds timeout) override {
        Exchange exchange;
        if (!exchange.open(url, L"POST", timeout)) return {};
        HINTERNET request = exchange.request->value;
        const wchar_t* type = L"Content-Type: application/json\r\n";
        if (!WinHttpSendRequest(request, type, static_cast<DWORD>(-1L), const_cast<char*>(body.data()), static_cast<DWORD>(body.size()),
                                static_cast<DWORD>(body.size()), 0) ||
            !WinHttpReceiveResponse(request, nullptr)) {
            return {};
        }

        HttpResponse response;
        const int status = exchange.status();
        if (status == 0) return {};
        response.signature = header(request, L"Licence-Signature");
        response.retry_after_seconds = std::strtoll(header(request, L"Retry-After").c_str(), nullptr, 10);
        char buffer[4096];
        DWORD read = 0;
        // A body cut short is no answer (offline), never a body whose signature fails (tampered).
        do {
            if (!WinHttpReadData(request, buffer, sizeof buffer, &read) || response.body.size() + read > max_body) return {};
            response.body.append(buffer, read);
        } while (read > 0);
        response.status = status;
        return response;
    }

    DownloadStatus get(const std::string& url, std::int64_t from, DownloadSink& sink, std::chrono::milliseconds stall) override {
        DownloadStatus result;
        Exchange exchange;
        // The timeouts apply to each step (connect, each read): a stalled transfer ends, a long one does not.
        if (!exchange.open(url, L"GET", stall)) return result;
        HINTERNET request = exchange.request->value;
        const std::wstring range = L"Range: bytes=" + std::to_wstring(from) + L"-\r\n";
        if (!WinHttpSendRequest(request, from > 0 ? range.c_str() : WINHTTP_NO_ADDITIONAL_HEADERS, from > 0 ? static_cast<DWORD>(-1L) : 0,
                                WINHTTP_NO_REQUEST_DATA, 0, 0, 0) ||
            !WinHttpReceiveResponse(request, nullptr)) {
            return result;
        }
        result.status = exchange.status();
        if (result.status == 0) return result;
        // "bytes 1048576-2097151/4194304": where the bytes of a 206 start.
        const std::string content_range = header(request, L"Content-Range");
        const std::int64_t first_byte = content_range.rfind("bytes ", 0) == 0 ? std::strtoll(content_range.c_str() + 6, nullptr, 10) : -1;
        if (!sink.begin(result.status, first_byte)) return result;
        std::vector<char> buffer(64 * 1024);
        DWORD read = 0;
        do {
            if (!WinHttpReadData(request, buffer.data(), static_cast<DWORD>(buffer.size()), &read)) return result;
            if (read > 0 && !sink.write(buffer.data(), read)) return result;
        } while (read > 0);
        result.complete = true;
        return result;
    }
};

}  // namespace

std::shared_ptr<Transport> default_transport() { return std::make_shared<WinHttpTransport>(); }

}  // namespace vertex::licence
