// The licence check a shop copies into its program: check at start, then let the heartbeat stop
// the program when the licence is revoked, banned or expires while it runs. `update` asks for the
// newest release the licence may have and, when it is newer than this program, downloads it,
// verified against the signed SHA-256. `release` frees this PC so the key can move to another.
#include <vertex/licence.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

// The shop's public key (GET /api/v1/licences/signing-key), compiled in: never read from a file.
// CMake's vertex_licence_public_key() gives it; a key missing or malformed stops the build.
#ifndef VERTEX_SHOP_PUBLIC_KEY
#error "Build with the shop's public key: cmake -DVERTEX_SHOP_PUBLIC_KEY=<publicKey from /api/v1/licences/signing-key>"
#endif
static_assert(vertex::licence::is_public_key(VERTEX_SHOP_PUBLIC_KEY), "VERTEX_SHOP_PUBLIC_KEY is not the shop's publicKey (base64 of 32 bytes)");

// This program's own version: update downloads only a newer one.
#ifndef VERTEX_PROGRAM_VERSION
#define VERTEX_PROGRAM_VERSION "1.0.0"
#endif

namespace licence = vertex::licence;

// "valid VALID: Licence valid.", "offline no-lease: …", "invalid-request hwid: …".
static void report(const licence::Result& result) {
    const std::string_view why = result.code != licence::Code::none ? to_string(result.code)
                                 : result.reason != licence::Reason::none ? to_string(result.reason)
                                                                          : std::string_view(result.field);
    std::printf("%s %.*s: %s\n", to_string(result.outcome).data(), static_cast<int>(why.size()), why.data(), result.message.c_str());
    // "3 days left — renew at https://…": the member renews before the program stops, not after.
    if (result.expires_at_ms) {
        const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        constexpr std::int64_t day_ms = 24LL * 60 * 60 * 1000;
        const long long days = std::max<std::int64_t>(0, (*result.expires_at_ms - now_ms + day_ms - 1) / day_ms);
        if (result.renew_url.empty()) std::printf("%lld days left\n", days);
        else std::printf("%lld days left \xE2\x80\x94 renew at %s\n", days, result.renew_url.c_str());
    }
    std::fflush(stdout);
}

// `update [stable|beta] [file]`: the newest release, when newer than this program, saved and verified.
static int update(licence::Client& client, const std::string& key, const std::string& channel, const std::string& file) {
    const auto latest = client.latest_release(key, channel);
    std::printf("%s\n", latest.message.c_str());
    if (latest.error == licence::ReleaseError::up_to_date || latest.error == licence::ReleaseError::no_release) return 0;
    if (!latest.ok()) return 1;
    const auto& release = *latest.release;
    std::printf("%s %s (%lld bytes, sha256 %s)\n", release.channel.c_str(), release.version.c_str(), static_cast<long long>(release.size), release.sha256.c_str());
    const auto saved = client.download_release(release, file.empty() ? release.file_name : file);
    std::printf("%s\n", saved.message.c_str());
    return saved.ok() ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr,
                     "usage: %s <shop URL> <licence key> [heartbeat seconds]\n"
                     "       %s <shop URL> <licence key> update [stable|beta] [file]\n"
                     "       %s <shop URL> <licence key> release\n",
                     argv[0], argv[0], argv[0]);
        return 2;
    }
    const std::string command = argc > 3 ? argv[3] : "";
    licence::Config config;
    config.base_url = argv[1];
    config.public_key = VERTEX_SHOP_PUBLIC_KEY;
    config.product = "Vertex Rust";
    config.version = VERTEX_PROGRAM_VERSION;
    config.lease_file = "licence.lease";  // the signed offline lease, next to the program
    licence::Client client(config);
    if (command == "update") return update(client, argv[2], argc > 4 ? argv[4] : "stable", argc > 5 ? argv[5] : "");
    if (command == "release") {
        const auto released = client.deactivate(argv[2]);
        report(released.result);
        return released.ok() ? 0 : 1;
    }

    const auto result = client.check(argv[2]);
    report(result);
    if (!result.ok()) return 1;

    std::atomic<bool> running{true};
    const auto every = argc > 3 ? std::optional(std::chrono::seconds(std::atoi(argv[3]))) : std::nullopt;
    client.start_heartbeat(
        argv[2],
        [&](const licence::Result& now) {
            report(now);
            if (now.ok()) return;
            client.stop_heartbeat();  // from its own callback: no more checks, nothing waited for
            running = false;
        },
        every);
    while (running) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the program's work
    return 1;
}
