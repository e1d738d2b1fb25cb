// The default hardware id and device name. The machine's identity is keyed into HMAC-SHA256 with
// the program's salt, so the shop never sees it raw and two programs on one PC send unrelated ids.
// The firmware's UUID comes first, as it survives reinstalling the system; the installation's own
// id is the fallback. Every SDK derives the same id from the same source (the machine-id vectors).
#include <sodium.h>

#include <cctype>
#include <stdexcept>

#include "platform.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {

std::optional<std::string> firmware_source(std::string_view uuid) {
    std::string id;
    for (const char c : uuid) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (id.size() != 36) return std::nullopt;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? id[i] != '-' : !std::isxdigit(static_cast<unsigned char>(id[i]))) return std::nullopt;
    }
    // What firmware writes when it has no UUID to give: every PC of a kind would share it.
    std::string digits;
    for (const char c : id) {
        if (c != '-') digits += c;
    }
    if (digits.find_first_not_of('0') == std::string::npos || digits.find_first_not_of('f') == std::string::npos) return std::nullopt;
    if (id == "03000200-0400-0500-0006-000700080009" || id == "00020003-0004-0005-0006-000700080009") return std::nullopt;
    return "smbios:" + id;
}

std::vector<std::string> machine_sources() {
    std::vector<std::string> sources;
    if (const auto uuid = platform::firmware_uuid()) {
        if (auto source = firmware_source(*uuid)) sources.push_back(std::move(*source));
    }
    if (auto source = platform::installation_source()) sources.push_back(std::move(*source));
    return sources;
}

std::string hardware_id(std::string_view app_salt, std::string_view source) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(app_salt.data()), app_salt.size());
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(source.data()), source.size());
    unsigned char digest[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256_final(&state, digest);
    char hex[sizeof digest * 2 + 1];
    sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
    return hex;
}

std::string machine_id(std::string_view app_salt) {
    const std::vector<std::string> sources = machine_sources();
    if (sources.empty()) throw std::runtime_error("This computer has no machine identity to derive a hardware id from");
    return hardware_id(app_salt, sources.front());
}

std::string device_name() {
    // The API takes printable ASCII, trimmed, at most 64 characters: anything else is left out
    // rather than refused, so an unusual computer name never fails a check.
    std::string name;
    for (const char c : platform::computer_name()) {
        if (c >= 0x20 && c <= 0x7e && name.size() < 64) name += c;
    }
    const auto first = name.find_first_not_of(' ');
    if (first == std::string::npos) return {};
    return name.substr(first, name.find_last_not_of(' ') - first + 1);
}

}  // namespace vertex::licence
