// The default hardware id and device name. The machine's identity is keyed into HMAC-SHA256 with
// the program's salt, so the shop never sees it raw and two programs on one PC send unrelated ids.
#include <sodium.h>

#include <stdexcept>

#include "platform.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {

std::string machine_id(std::string_view app_salt) {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
    const std::string source = platform::machine_source();
    crypto_auth_hmacsha256_state state;
    crypto_auth_hmacsha256_init(&state, reinterpret_cast<const unsigned char*>(app_salt.data()), app_salt.size());
    crypto_auth_hmacsha256_update(&state, reinterpret_cast<const unsigned char*>(source.data()), source.size());
    unsigned char digest[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256_final(&state, digest);
    char hex[sizeof digest * 2 + 1];
    sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
    return hex;
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
