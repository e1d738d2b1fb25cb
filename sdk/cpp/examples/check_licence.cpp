// The licence check a shop copies into its program: check at start, then let the heartbeat stop
// the program when the licence is revoked, banned or expires while it runs.
#include <vertex/licence.hpp>

#include <atomic>
#include <cstdio>
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

int main(int argc, char** argv) {
    if (argc < 3) return std::fprintf(stderr, "usage: %s <shop URL> <licence key> [heartbeat seconds]\n", argv[0]), 2;
    vertex::licence::Config config;
    config.base_url = argv[1];
    config.public_key = SHOP_PUBLIC_KEY;
    config.product = "Vertex Rust";
    config.lease_file = "licence.lease";  // the signed offline lease, next to the program
    vertex::licence::Client client(config);

    const auto result = client.check(argv[2]);
    report(result);
    if (!result.ok()) return 1;

    std::atomic<bool> running{true};
    const auto every = argc > 3 ? std::optional(std::chrono::seconds(std::atoi(argv[3]))) : std::nullopt;
    client.start_heartbeat(argv[2], [&](const vertex::licence::Result& now) { report(now), running = now.ok(); }, every);
    while (running) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the program's work
    return 1;
}
