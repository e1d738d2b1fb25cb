// The transport on Windows: WinHTTP, HTTPS verified by the system, no dependency beyond Windows.
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <winhttp.h>

#include <string>

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

class WinHttpTransport final : public Transport {
public:
    HttpResponse post_json(const std::string& url, const std::string& body, std::chrono::milliseconds timeout) override {
        const std::wstring address = wide(url);
        URL_COMPONENTS parts{};
        parts.dwStructSize = sizeof parts;
        parts.dwHostNameLength = static_cast<DWORD>(-1);
        parts.dwUrlPathLength = static_cast<DWORD>(-1);
        parts.dwExtraInfoLength = static_cast<DWORD>(-1);
        if (!WinHttpCrackUrl(address.c_str(), 0, 0, &parts)) return {};
        const std::wstring host(parts.lpszHostName, parts.dwHostNameLength);
        const std::wstring path = std::wstring(parts.lpszUrlPath, parts.dwUrlPathLength) + std::wstring(parts.lpszExtraInfo, parts.dwExtraInfoLength);

        Handle session(WinHttpOpen(L"vertex-licence/1", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0));
        if (!session) return {};
        const int ms = static_cast<int>(timeout.count());
        WinHttpSetTimeouts(session.value, ms, ms, ms, ms);
        Handle connection(WinHttpConnect(session.value, host.c_str(), parts.nPort, 0));
        if (!connection) return {};
        const DWORD flags = parts.nScheme == INTERNET_SCHEME_HTTPS ? WINHTTP_FLAG_SECURE : 0;
        Handle request(WinHttpOpenRequest(connection.value, L"POST", path.c_str(), nullptr, WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES, flags));
        if (!request) return {};
        const wchar_t* type = L"Content-Type: application/json\r\n";
        if (!WinHttpSendRequest(request.value, type, static_cast<DWORD>(-1L), const_cast<char*>(body.data()), static_cast<DWORD>(body.size()),
                                static_cast<DWORD>(body.size()), 0) ||
            !WinHttpReceiveResponse(request.value, nullptr)) {
            return {};
        }

        HttpResponse response;
        DWORD status = 0;
        DWORD size = sizeof status;
        if (!WinHttpQueryHeaders(request.value, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER, WINHTTP_HEADER_NAME_BY_INDEX, &status, &size,
                                 WINHTTP_NO_HEADER_INDEX)) {
            return {};
        }
        response.signature = header(request.value, L"Licence-Signature");
        response.retry_after_seconds = std::strtoll(header(request.value, L"Retry-After").c_str(), nullptr, 10);
        char buffer[4096];
        DWORD read = 0;
        // A body cut short is no answer (offline), never a body whose signature fails (tampered).
        do {
            if (!WinHttpReadData(request.value, buffer, sizeof buffer, &read) || response.body.size() + read > max_body) return {};
            response.body.append(buffer, read);
        } while (read > 0);
        response.status = static_cast<int>(status);
        return response;
    }
};

}  // namespace

std::shared_ptr<Transport> default_transport() { return std::make_shared<WinHttpTransport>(); }

}  // namespace vertex::licence
