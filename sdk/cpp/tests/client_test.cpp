// The client as a program uses it, against a shop played by a test transport that signs answers
// with the vectors' published test key: the lease file and the newest time kept across runs,
// refusals that end the lease and are kept, a malformed request, forgeries and replays,
// entitlements, the heartbeat (stopped from its own callback, never waiting on the network), the
// program's own release of its PC, translated messages, and the machine id.
#include <sodium.h>

#include <atomic>
#include <condition_variable>
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
#ifdef _WIN32
    gmtime_s(&parts, &seconds);
#else
    gmtime_r(&seconds, &parts);
#endif
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
    /** Answer this HTTP status with the API's error body instead (400: a malformed request). */
    int refuse_with = 0;
    /** How far the shop's clock is from this machine's, in ms (its answers' issuedAt). */
    std::int64_t clock_offset_ms = 0;
    /** Holds every call until released: a shop that takes its time. */
    std::function<void()> stall;
    std::string last_request;
    std::string last_url;
    std::atomic<int> calls{0};

    HttpResponse post_json(const std::string& url, const std::string& body, std::chrono::milliseconds) override {
        if (stall) stall();
        const std::lock_guard<std::mutex> lock(mutex_);
        ++calls;
        last_request = body;
        last_url = url;
        if (!reachable) return {};
        if (refuse_with != 0) {
            return HttpResponse{refuse_with, "{\"error\":{\"code\":\"INVALID_REQUEST\",\"message\":\"hwid must be 16 to 256 printable characters\",\"field\":\"hwid\"}}", "", 0};
        }
        const auto request = json::parse(body);
        const std::int64_t now = now_ms() + clock_offset_ms;
        if (url.size() >= 10 && url.compare(url.size() - 10, 10, "deactivate") == 0) {
            const std::string released = code == "RELEASED" ? "true" : "false";
            const std::string answer = "{\"released\":" + released + ",\"code\":" + json::quote(code) + ",\"key\":" + json::quote(request->find("key")->string) +
                                       ",\"hwid\":" + json::quote(request->find("hwid")->string) + ",\"nonce\":" + json::quote(request->find("nonce")->string) +
                                       ",\"issuedAt\":\"" + iso(now) + "\",\"nextReleaseAt\":null}";
            return HttpResponse{200, tamper ? tamper(answer) : answer, signer_.sign(answer), 0};
        }
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
        tally.expect(first.ok() && !first.from_lease && first.code == Code::valid && first.recheck_after_seconds == 600, "a signed VALID answer is valid");
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
        tally.expect(cut.ok() && cut.from_lease && cut.network == Reason::unreachable, "with the shop unreachable, the lease answers, saying why it had to");
        const Result other = client.check("KEY-2");
        tally.expect(other.outcome == Outcome::offline && other.reason == Reason::no_lease && other.network == Reason::unreachable,
                     "the lease is for its own key only: another key is offline with the lease's own reason, no-lease");
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
        tally.expect(forged.outcome == Outcome::tampered && forged.reason == Reason::signature, "an edited answer is tampered, not valid");
        tally.expect(FileLeaseStore(lease).read().has_value(), "a forgery does not touch the lease");
        shop->tamper = nullptr;

        const Result refused = client.check("KEY-1");
        tally.expect(refused.outcome == Outcome::denied && refused.code == Code::revoked && refused.api_code == "REVOKED" && !refused.message.empty(),
                     "a signed REVOKED is denied, with a message");
        const auto kept = FileLeaseStore(lease).read();
        tally.expect(kept && kept->body.find("\"REVOKED\"") != std::string::npos, "a signed refusal ends the lease, and is kept in its place");
        shop->reachable = false;
        const Result after = client.check("KEY-1");
        tally.expect(after.outcome == Outcome::denied && after.code == Code::revoked && after.from_lease,
                     "after a refusal, cutting the network brings nothing back: the kept refusal answers");
        Client restarted(config_for(shop, shop->public_key_base64(), lease));
        tally.expect(restarted.check("KEY-1").code == Code::revoked, "and it still answers in the program's next run");
        tally.expect(restarted.check("KEY-OTHER").reason == Reason::no_lease, "the kept refusal is about its own key only");
        shop->reachable = true;
        shop->code = "VALID";
        tally.expect(client.check("KEY-1").ok() && FileLeaseStore(lease).read()->body.find("\"VALID\"") != std::string::npos,
                     "a VALID answer (after staff undo it) takes the refusal's place");
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
        tally.expect(edited.outcome == Outcome::tampered && edited.reason == Reason::signature, "a lease file edited to last longer is tampered");
        shop->reachable = true;
    }
    {
        // An earlier lease file put back, once a newer answer was seen, in a later run.
        const std::filesystem::path saved = lease.string() + ".copy";
        std::filesystem::remove(lease);
        std::filesystem::remove(lease.string() + ".newest");
        shop->clock_offset_ms = -2 * 3600 * 1000LL;  // issued two hours ago: a lease taken then
        Client(config_for(shop, shop->public_key_base64(), lease)).check("KEY-1");
        // Removed first: MinGW's copy_file refuses to overwrite, whatever the options say.
        std::filesystem::remove(saved);
        std::filesystem::copy_file(lease, saved);
        shop->clock_offset_ms = 0;
        Client(config_for(shop, shop->public_key_base64(), lease)).check("KEY-1");
        std::filesystem::remove(lease);
        std::filesystem::copy_file(saved, lease);
        shop->reachable = false;
        const Result put_back = Client(config_for(shop, shop->public_key_base64(), lease)).check("KEY-1");
        tally.expect(put_back.outcome == Outcome::tampered && put_back.reason == Reason::stale,
                     "an older lease put back after a newer answer was seen is refused in the next run (the newest time is kept)");
        shop->reachable = true;
        std::filesystem::remove(saved);
    }
    {
        // The program's own mistake is reported as such, never run on the lease as if the shop were down.
        Client client(config_for(shop, shop->public_key_base64(), lease));
        tally.expect(client.check("KEY-1").ok(), "a lease is in force before the malformed request");
        shop->refuse_with = 400;
        const Result wrong = client.check("KEY-1");
        tally.expect(wrong.outcome == Outcome::invalid_request && wrong.field == "hwid" && wrong.api_code == "INVALID_REQUEST" &&
                         wrong.message.find("hwid must be 16 to 256 printable characters") != std::string::npos && !wrong.from_lease,
                     "a 400 is invalid-request with the server's message, not offline on the lease");
        shop->refuse_with = 0;
    }
    {
        Client client(config_for(shop, shop->public_key_base64(), {}));
        client.check("KEY-1");
        const auto replay = std::make_shared<Replay>(shop->last_response);
        Client replayed(config_for(replay, shop->public_key_base64(), {}));
        tally.expect(replayed.check("KEY-1").reason == Reason::nonce, "a recorded answer replayed to a new call is tampered");

        Config other_key = config_for(shop, "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=", {});  // RFC 8032's second test key
        tally.expect(Client(other_key).check("KEY-1").reason == Reason::signature, "an answer signed by another key than the built-in one is tampered");

        Config apex = config_for(shop, shop->public_key_base64(), {});
        apex.product = "Vertex Apex";
        tally.expect(Client(apex).check("KEY-1").code == Code::wrong_product, "a key for another product is denied");

        Config german = config_for(shop, shop->public_key_base64(), {});
        german.messages = {{"denied.WRONG_PRODUCT", "Dieser Schlüssel gehört zu einem anderen Produkt."}};
        german.product = "Vertex Apex";
        tally.expect(Client(german).check("KEY-1").message == "Dieser Schlüssel gehört zu einem anderen Produkt.", "a program's own sentences replace the English ones");
        tally.expect(english_messages().count("offline.no-lease") == 1 && english_messages().count("release.up-to-date") == 1,
                     "the English sentences are one table, by key");

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
        tally.expect(arrived && future.get().code == Code::revoked, "the heartbeat reports the revocation");
        client.stop_heartbeat();
        const int calls = shop->calls;
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
        tally.expect(shop->calls == calls, "a stopped heartbeat calls no more");
        shop->code = "VALID";
    }
    {
        // The program stops the heartbeat from its own callback, as the example does on a refusal.
        Client client(config_for(shop, shop->public_key_base64(), {}));
        client.check("KEY-1");
        std::promise<void> stopped;
        std::atomic<int> told{0};
        client.start_heartbeat(
            "KEY-1",
            [&](const Result&) {
                ++told;
                client.stop_heartbeat();
                stopped.set_value();
            },
            std::chrono::seconds{1});
        shop->code = "REVOKED";
        auto future = stopped.get_future();
        tally.expect(future.wait_for(std::chrono::seconds{60}) == std::future_status::ready, "stop_heartbeat() from its own callback returns");
        std::this_thread::sleep_for(std::chrono::milliseconds{1500});
        tally.expect(told == 1, "and nothing is called back after it");
        shop->code = "VALID";
    }
    {
        // A heartbeat whose check hangs on the network: stopping it, or destroying the client, does not wait.
        auto client = std::make_unique<Client>(config_for(shop, shop->public_key_base64(), {}));
        client->check("KEY-1");
        std::mutex gate_mutex;
        std::condition_variable gate;
        bool open = false;
        std::atomic<bool> waiting{false};
        shop->stall = [&] {
            std::unique_lock<std::mutex> lock(gate_mutex);
            waiting = true;
            gate.wait(lock, [&] { return open; });
        };
        std::atomic<bool> called_back{false};
        client->start_heartbeat("KEY-1", [&](const Result&) { called_back = true; }, std::chrono::seconds{1});
        while (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds{20});
        auto stopping = std::async(std::launch::async, [&] {
            client->stop_heartbeat();
            client.reset();
        });
        const bool returned = stopping.wait_for(std::chrono::seconds{20}) == std::future_status::ready;
        tally.expect(returned, "stop_heartbeat() and the destructor return while a check is still in flight");
        shop->code = "REVOKED";
        {
            const std::lock_guard<std::mutex> lock(gate_mutex);
            open = true;
        }
        gate.notify_all();
        stopping.wait();
        shop->stall = nullptr;
        std::this_thread::sleep_for(std::chrono::milliseconds{200});
        tally.expect(!called_back, "the check that was in flight ends without calling back");
        shop->code = "VALID";
    }
    {
        // The program releases its own PC: the shop's signed RELEASED, and the lease gone with it.
        Client client(config_for(shop, shop->public_key_base64(), lease));
        client.check("KEY-1");
        shop->code = "RELEASED";
        const Deactivation released = client.deactivate("KEY-1");
        tally.expect(released.ok() && released.result.code == Code::released && shop->last_url == "https://shop.test/api/v1/licences/deactivate",
                     "deactivate asks licences/deactivate and believes a signed RELEASED");
        tally.expect(!FileLeaseStore(lease).read().has_value(), "the released PC's lease is gone");
        shop->code = "TOO_SOON";
        const Deactivation soon = client.deactivate("KEY-1");
        tally.expect(!soon.ok() && soon.result.outcome == Outcome::denied && soon.result.code == Code::too_soon, "a move too soon is refused, signed");
        // A refusal edited into a release.
        shop->tamper = [](std::string body) { return body.replace(body.find("\"released\":false"), 16, "\"released\":true "); };
        tally.expect(client.deactivate("KEY-1").result.outcome == Outcome::tampered, "an edited release answer is tampered");
        shop->tamper = nullptr;
        shop->code = "VALID";
    }
    {
        // Versions in semantic-version order, as the shop orders its releases.
        const std::pair<const char*, const char*> ascending[] = {
            {"1.0.0-alpha", "1.0.0-alpha.1"}, {"1.0.0-alpha.1", "1.0.0-alpha.beta"}, {"1.0.0-alpha.beta", "1.0.0-beta"},
            {"1.0.0-beta.2", "1.0.0-beta.11"}, {"1.0.0-rc.1", "1.0.0"},               {"1.9.0", "1.10.0"},
            {"1.10.0", "2.0.0"},              {"0.9.9", "1.0.0"},
        };
        bool ordered = true;
        for (const auto& [earlier, later] : ascending) ordered = ordered && compare_versions(earlier, later) < 0 && compare_versions(later, earlier) > 0;
        tally.expect(ordered, "versions compare in semantic-version order (numbers as numbers, a pre-release before its release)");
        tally.expect(compare_versions("1.4.0", "1.4.0+build.7") == 0 && compare_versions("v1.4.0", "1.4.0") == 0, "build metadata and a leading v do not count");
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
    std::filesystem::remove(lease.string() + ".newest");
    return tally.finish();
}
