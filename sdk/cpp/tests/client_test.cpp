// The client as a program uses it, against a shop played by a test transport that signs answers
// with the vectors' published test key: the lease file, refusals that end it, forgeries and
// replays, entitlements, the heartbeat, and the machine id.
#include <sodium.h>

#include <atomic>
#include <ctime>
#include <fstream>
#include <future>
#include <thread>

#include "check.hpp"
#include "vertex/licence.hpp"

using namespace vertex::licence;

namespace {

std::string iso(std::int64_t ms) {
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[80];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min,
                  parts.tm_sec, static_cast<int>(ms % 1000));
    return text;
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/** The shop, as far as the client can tell: answers signed with the test key, as the server writes them. */
class TestShop final : public Transport {
public:
    explicit TestShop(const std::string& seed_hex) : signer_(seed_hex) {}

    std::string public_key_base64() const { return signer_.public_key_base64(); }

    // What the shop answers next: a code, or no answer at all.
    std::atomic<bool> reachable{true};
    std::string code = "VALID";
    std::string entitlements;  // a JSON array's inside, or empty for none
    std::function<std::string(std::string)> tamper;
    std::string last_request;
    std::atomic<int> calls{0};

    HttpResponse post_json(const std::string&, const std::string& body, std::chrono::milliseconds) override {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++calls;
        last_request = body;
        if (!reachable) return {};
        const auto request = json::parse(body);
        const std::int64_t now = now_ms();
        const bool valid = code == "VALID";
        std::string answer = "{\"valid\":" + std::string(valid ? "true" : "false") + ",\"code\":" + json::quote(code) + ",\"key\":" + json::quote(request->find("key")->string) +
                             ",\"hwid\":" + json::quote(request->find("hwid")->string) + ",\"nonce\":" + json::quote(request->find("nonce")->string) +
                             ",\"issuedAt\":\"" + iso(now) + "\",\"ttl\":" + (valid ? "600" : "0") +
                             ",\"licence\":{\"product\":\"Vertex Rust\",\"plan\":\"weekly\",\"activatedAt\":\"" + iso(now - 3600000) + "\",\"expiresAt\":\"" +
                             iso(now + 6 * 86400000LL) + "\"" + (entitlements.empty() ? "" : ",\"entitlements\":[" + entitlements + "]") + "}" +
                             ",\"lease\":" + (valid ? "{\"until\":\"" + iso(now + 72 * 3600000LL) + "\"}" : "null") + "}";
        HttpResponse response{200, tamper ? tamper(answer) : answer, signer_.sign(answer), 0};
        last_response = response;
        return response;
    }

    HttpResponse last_response;

private:
    std::mutex mutex_;
    testing::TestSigner signer_;
};

/** Replays one recorded answer to every call. */
class Replay final : public Transport {
public:
    explicit Replay(HttpResponse recorded) : recorded_(std::move(recorded)) {}
    HttpResponse post_json(const std::string&, const std::string&, std::chrono::milliseconds) override { return recorded_; }

private:
    HttpResponse recorded_;
};

constexpr const char* hwid = "TEST-HWID-0123456789abcdef";

Config config_for(const std::shared_ptr<Transport>& transport, const std::string& public_key, const std::filesystem::path& lease_file) {
    Config config;
    config.base_url = "https://shop.test";
    config.public_key = public_key;
    config.transport = transport;
    config.lease_file = lease_file;
    config.hwid = hwid;
    config.device = "TEST-RIG";
    return config;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || sodium_init() < 0) return 2;
    const json::Value vectors = testing::read_vectors(argv[1]);
    testing::Tally tally;
    const auto shop = std::make_shared<TestShop>(vectors.find("testOnlyPrivateKey")->find("seedHex")->string);
    const std::filesystem::path lease = std::filesystem::temp_directory_path() / ("vertex-lease-test-" + std::to_string(now_ms()));

    {
        Client client(config_for(shop, shop->public_key_base64(), lease));
        const Result first = client.check("KEY-1");
        tally.expect(first.ok() && !first.from_lease && first.code == "VALID" && first.recheck_after_seconds == 600, "a signed VALID answer is valid");
        tally.expect(first.product == "Vertex Rust" && first.lease_until_ms > now_ms() + 71 * 3600000LL, "the answer's terms and lease are read");
        const auto sent = json::parse(shop->last_request);
        tally.expect(sent && sent->find("device")->string == "TEST-RIG" && sent->find("hwid")->string == hwid && sent->find("nonce")->string.size() == 32,
                     "the request names the PC, its name and a fresh nonce");
        tally.expect(FileLeaseStore(lease).read().has_value(), "the VALID answer is stored as the lease");
        const std::string first_nonce = sent->find("nonce")->string;
        client.check("KEY-1");
        tally.expect(json::parse(shop->last_request)->find("nonce")->string != first_nonce, "every call has its own nonce");

        shop->reachable = false;
        const Result cut = client.check("KEY-1");
        tally.expect(cut.ok() && cut.from_lease, "with the shop unreachable, the lease answers");
        tally.expect(client.check("KEY-2").outcome == Outcome::offline, "the lease is for its own key only");
        shop->reachable = true;
    }
    {
        // The next run of the program, offline from the start: the lease file carries it.
        shop->reachable = false;
        Client restarted(config_for(shop, shop->public_key_base64(), lease));
        tally.expect(restarted.check("KEY-1").from_lease, "a new run works offline on the stored lease");
        shop->reachable = true;
    }
    {
        Client client(config_for(shop, shop->public_key_base64(), lease));
        shop->code = "REVOKED";
        shop->tamper = [](std::string body) {
            const std::string from = "\"code\":\"REVOKED\"";
            return body.replace(body.find(from), from.size(), "\"code\":\"VALID\"");
        };
        const Result forged = client.check("KEY-1");
        tally.expect(forged.outcome == Outcome::tampered && forged.reason == "signature", "an edited answer is tampered, not valid");
        tally.expect(FileLeaseStore(lease).read().has_value(), "a forgery does not touch the lease");
        shop->tamper = nullptr;

        const Result refused = client.check("KEY-1");
        tally.expect(refused.outcome == Outcome::denied && refused.code == "REVOKED" && !refused.message.empty(), "a signed REVOKED is denied, with a message");
        tally.expect(!FileLeaseStore(lease).read().has_value(), "a signed refusal ends the lease");
        shop->reachable = false;
        tally.expect(client.check("KEY-1").outcome == Outcome::offline, "after a refusal, cutting the network brings nothing back");
        shop->reachable = true;
        shop->code = "VALID";
    }
    {
        Client client(config_for(shop, shop->public_key_base64(), lease));
        client.check("KEY-1");
        std::string body = FileLeaseStore(lease).read()->body;
        const std::string year = "\"until\":\"2";
        body.replace(body.find(year), year.size(), "\"until\":\"3");
        FileLeaseStore(lease).write(StoredLease{body, FileLeaseStore(lease).read()->signature});
        shop->reachable = false;
        const Result edited = client.check("KEY-1");
        tally.expect(edited.outcome == Outcome::tampered && edited.reason == "signature", "a lease file edited to last longer is tampered");
        shop->reachable = true;
    }
    {
        Client client(config_for(shop, shop->public_key_base64(), {}));
        client.check("KEY-1");
        const auto replay = std::make_shared<Replay>(shop->last_response);
        Client replayed(config_for(replay, shop->public_key_base64(), {}));
        tally.expect(replayed.check("KEY-1").reason == "nonce", "a recorded answer replayed to a new call is tampered");

        Config other_key = config_for(shop, "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=", {});  // RFC 8032's second test key
        tally.expect(Client(other_key).check("KEY-1").reason == "signature", "an answer signed by another key than the built-in one is tampered");

        Config apex = config_for(shop, shop->public_key_base64(), {});
        apex.product = "Vertex Apex";
        tally.expect(Client(apex).check("KEY-1").code == "WRONG_PRODUCT", "a key for another product is denied");

        bool refused = false;
        try {
            Client(config_for(shop, "not-a-key", {}));
        } catch (const std::invalid_argument&) {
            refused = true;
        }
        tally.expect(refused, "a public key that is not 32 bytes is refused at construction");
    }
    {
        Client client(config_for(shop, shop->public_key_base64(), {}));
        shop->entitlements = "\"beta\",\"configs\"";
        const Result granted = client.check("KEY-1");
        tally.expect(granted.has_entitlement("beta") && granted.has_entitlement("configs") && !granted.has_entitlement("admin"), "entitlements are read from the signed answer");
        shop->entitlements.clear();
        tally.expect(!client.check("KEY-1").has_entitlement("beta"), "no entitlements listed means none");
    }
    {
        // A refund reaches a running program through the heartbeat.
        Client client(config_for(shop, shop->public_key_base64(), {}));
        tally.expect(client.check("KEY-1").ok(), "the heartbeat starts from a valid licence");
        std::promise<Result> changed;
        std::atomic<bool> told{false};
        client.start_heartbeat(
            "KEY-1",
            [&](const Result& result) {
                if (!told.exchange(true)) changed.set_value(result);
            },
            std::chrono::seconds{1});
        shop->code = "REVOKED";
        auto future = changed.get_future();
        const bool arrived = future.wait_for(std::chrono::seconds{60}) == std::future_status::ready;
        tally.expect(arrived && future.get().code == "REVOKED", "the heartbeat reports the revocation");
        client.stop_heartbeat();
        const int calls = shop->calls;
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
        tally.expect(shop->calls == calls, "a stopped heartbeat calls no more");
        shop->code = "VALID";
    }
    {
        const std::string one = machine_id("program-one");
        tally.expect(one.size() == 64 && one.find_first_not_of("0123456789abcdef") == std::string::npos, "the machine id is a 64-digit hex digest");
        tally.expect(one == machine_id("program-one") && one != machine_id("program-two"), "the machine id is stable per program and differs between programs");
        std::ifstream raw("/etc/machine-id");
        std::string source;
        std::getline(raw, source);
        tally.expect(source.empty() || one.find(source) == std::string::npos, "the raw machine id is never what is sent");
        const std::string name = device_name();
        tally.expect(name.size() <= 64 && name.find_first_not_of(" ") == 0, "the device name is printable, trimmed and at most 64 characters");
    }
    std::filesystem::remove(lease);
    return tally.finish();
}
