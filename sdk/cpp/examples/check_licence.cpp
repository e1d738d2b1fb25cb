// The licence check a shop copies into its program: check at start, then let the heartbeat stop
// the program when the licence is revoked, banned or expires while it runs. `update` asks for the
// newest release the licence may have and downloads it, verified against the signed SHA-256.
#include <vertex/licence.hpp>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

// The shop's public key (GET /api/v1/licences/signing-key), compiled in: never read from a file.
#ifndef SHOP_PUBLIC_KEY
#define SHOP_PUBLIC_KEY "paste the publicKey here"
#endif

static void report(const vertex::licence::Result& result) {
    const std::string& why = result.code.empty() ? result.reason : result.code;  // VALID, REVOKED, rollback…
    std::printf("%s %s: %s\n", to_string(result.outcome).data(), why.c_str(), result.message.c_str());
    std::fflush(stdout);
}

// `update [stable|beta] [file]`: the newest release, downloaded next to the program and verified.
static int update(vertex::licence::Client& client, const std::string& key, const std::string& channel, const std::string& file) {
    const auto latest = client.latest_release(key, channel);
    if (!latest.ok()) return std::printf("no update (%s): %s\n", latest.error.c_str(), latest.message.c_str()), latest.error == "no-release" ? 0 : 1;
    const auto& release = *latest.release;
    std::printf("%s %s (%lld bytes, sha256 %s)\n", release.channel.c_str(), release.version.c_str(), static_cast<long long>(release.size), release.sha256.c_str());
    const auto saved = client.download_release(release, file.empty() ? release.file_name : file);
    std::printf("%s\n", saved.message.c_str());
    return saved.ok() ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <shop URL> <licence key> [heartbeat seconds]\n       %s <shop URL> <licence key> update [stable|beta] [file]\n", argv[0], argv[0]);
        return 2;
    }
    vertex::licence::Config config;
    config.base_url = argv[1];
    config.public_key = SHOP_PUBLIC_KEY;
    config.product = "Vertex Rust";
    config.lease_file = "licence.lease";  // the signed offline lease, next to the program
    vertex::licence::Client client(config);
    if (argc > 3 && std::string(argv[3]) == "update") return update(client, argv[2], argc > 4 ? argv[4] : "stable", argc > 5 ? argv[5] : "");

    const auto result = client.check(argv[2]);
    report(result);
    if (!result.ok()) return 1;

    std::atomic<bool> running{true};
    const auto every = argc > 3 ? std::optional(std::chrono::seconds(std::atoi(argv[3]))) : std::nullopt;
    client.start_heartbeat(argv[2], [&](const vertex::licence::Result& now) { report(now), running = now.ok(); }, every);
    while (running) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the program's work
    return 1;
}
