// The client around the verifier: asks the shop with a fresh nonce (a check, or the newest release),
// keeps the newest signed time and the wall/monotonic anchor that the clock rules measure from,
// stores each VALID answer as the lease and drops it on any signed refusal, and runs the optional
// heartbeat.
#include <sodium.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "download.hpp"
#include "json.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

/** A lease kept only while the program runs. */
class MemoryLeaseStore final : public LeaseStore {
public:
    std::optional<StoredLease> read() override { return lease_; }
    void write(const StoredLease& lease) override { lease_ = lease; }
    void clear() override { lease_.reset(); }

private:
    std::optional<StoredLease> lease_;
};

std::string fresh_nonce() {
    unsigned char bytes[16];
    randombytes_buf(bytes, sizeof bytes);
    char hex[sizeof bytes * 2 + 1];
    sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
    return hex;
}

std::int64_t milliseconds(std::chrono::system_clock::time_point at) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
}

std::string api_url(std::string base, std::string_view endpoint) {
    while (!base.empty() && base.back() == '/') base.pop_back();
    return base + "/api/v1/" + std::string(endpoint);
}

std::shared_ptr<LeaseStore> store_for(const Config& config) {
    if (config.lease_store) return config.lease_store;
    if (config.lease_file.empty()) return std::make_shared<MemoryLeaseStore>();
    return std::make_shared<FileLeaseStore>(config.lease_file);
}

}  // namespace

struct Client::State {
    explicit State(Config given)
        : config(std::move(given)),
          verifier(config.public_key, config.product),
          hwid(config.hwid.empty() ? machine_id(config.hwid_salt) : config.hwid),
          transport(config.transport ? config.transport : default_transport()),
          store(store_for(config)) {}

    Result ask(const std::string& key);
    HttpResponse call(std::string_view endpoint, const Question& sent, const std::string& extra) const;
    bool trust(const Result& judged, const HttpResponse& response);
    ClockReading read_clock() const;

    Config config;
    Verifier verifier;
    std::string hwid;
    std::shared_ptr<Transport> transport;
    std::shared_ptr<LeaseStore> store;

    // Checks run one at a time (the program's and the heartbeat's): these are theirs.
    std::mutex mutex;
    std::optional<std::int64_t> trusted_ms;
    std::chrono::system_clock::time_point anchor_wall = std::chrono::system_clock::now();
    std::chrono::steady_clock::time_point anchor_monotonic = std::chrono::steady_clock::now();
    std::optional<Result> latest;

    std::mutex heartbeat_mutex;
    std::condition_variable heartbeat_wake;
    bool heartbeat_stop = false;
    std::thread heartbeat;
};

Client::Client(Config config) : state_(std::make_unique<State>(std::move(config))) {
    if (state_->config.base_url.empty()) throw std::invalid_argument("The shop's base URL is required");
}

Client::~Client() { stop_heartbeat(); }

const std::string& Client::hwid() const { return state_->hwid; }

ClockReading Client::State::read_clock() const {
    const auto wall = std::chrono::system_clock::now();
    const auto monotonic = std::chrono::steady_clock::now();
    const auto wall_moved = std::chrono::duration_cast<std::chrono::milliseconds>(wall - anchor_wall);
    const auto monotonic_moved = std::chrono::duration_cast<std::chrono::milliseconds>(monotonic - anchor_monotonic);
    return ClockReading{milliseconds(wall), trusted_ms, (wall_moved - monotonic_moved).count()};
}

Result Client::check(const std::string& key) {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    state_->latest = state_->ask(key);
    return *state_->latest;
}

/** POSTs what every call sends (key, PC, nonce, device name) and `extra` members to `endpoint`. */
HttpResponse Client::State::call(std::string_view endpoint, const Question& sent, const std::string& extra) const {
    std::string body = "{\"key\":" + json::quote(sent.key) + ",\"hwid\":" + json::quote(sent.hwid) + ",\"nonce\":" + json::quote(sent.nonce);
    if (!config.device.empty()) body += ",\"device\":" + json::quote(config.device);
    body += extra + "}";
    return transport->post_json(api_url(config.base_url, endpoint), body, config.timeout);
}

/** After a judged answer: a genuine one moves the trusted time and the lease; false for any other. */
bool Client::State::trust(const Result& judged, const HttpResponse& response) {
    if (judged.outcome != Outcome::valid && judged.outcome != Outcome::denied) return false;
    // A genuine answer: the shop's time is now the program's, and drift is measured from here.
    trusted_ms = std::max(trusted_ms.value_or(judged.issued_at_ms), judged.issued_at_ms);
    anchor_wall = std::chrono::system_clock::now();
    anchor_monotonic = std::chrono::steady_clock::now();
    // Only the latest VALID answer may stand in offline: any signed refusal ends the lease.
    if (judged.outcome == Outcome::valid) store->write(StoredLease{response.body, response.signature});
    else store->clear();
    return true;
}

Result Client::State::ask(const std::string& key) {
    const Question sent{key, hwid, fresh_nonce()};
    const HttpResponse response = call("licences/validate", sent, {});
    Result judged = verifier.judge_answer(sent, response, read_clock());
    if (trust(judged, response) || judged.outcome == Outcome::tampered) return judged;

    Result leased = verifier.judge_lease(sent, store->read(), read_clock());
    if (leased.outcome != Outcome::offline) return leased;
    judged.message += " " + leased.message;
    return judged;
}

LatestRelease Client::latest_release(const std::string& key, const std::string& channel) {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    const Question sent{key, state_->hwid, fresh_nonce()};
    const HttpResponse response = state_->call("releases/latest", sent, ",\"channel\":" + json::quote(channel));
    LatestRelease answer = state_->verifier.judge_release(sent, channel, response, state_->read_clock());
    state_->trust(answer.licence, response);
    return answer;
}

DownloadResult Client::download_release(const Release& release, const std::filesystem::path& path) {
    return vertex::licence::download_release(*state_->transport, release, path, state_->config.timeout);
}

void Client::start_heartbeat(std::string key, std::function<void(const Result&)> on_change, std::optional<std::chrono::seconds> interval) {
    stop_heartbeat();
    State& state = *state_;
    {
        const std::lock_guard<std::mutex> lock(state.heartbeat_mutex);
        state.heartbeat_stop = false;
    }
    const auto chosen = interval ? std::max(*interval, min_heartbeat_interval) : std::chrono::seconds{0};
    std::optional<Result> latest;
    {
        const std::lock_guard<std::mutex> lock(state.mutex);
        latest = state.latest;
    }
    state.heartbeat = std::thread([this, &state, key = std::move(key), on_change = std::move(on_change), chosen, latest = std::move(latest)] {
        // Changes are measured from what the program last saw, not from a check of the heartbeat's own.
        Result last = latest ? *latest : check(key);
        while (true) {
            // The server's suggestion (VALID answers: 10 minutes), unless the program chose its own;
            // never sooner than a 429 asked.
            std::chrono::seconds wait = chosen.count() > 0 ? chosen : std::chrono::seconds{last.recheck_after_seconds > 0 ? last.recheck_after_seconds : 600};
            wait = std::max({wait, min_heartbeat_interval, std::chrono::seconds{last.retry_after_seconds}});
            {
                std::unique_lock<std::mutex> lock(state.heartbeat_mutex);
                if (state.heartbeat_wake.wait_for(lock, wait, [&state] { return state.heartbeat_stop; })) return;
            }
            Result next = check(key);
            const bool changed = next.outcome != last.outcome || next.code != last.code;
            last = std::move(next);
            if (changed) on_change(last);
        }
    });
}

void Client::stop_heartbeat() {
    State& state = *state_;
    {
        const std::lock_guard<std::mutex> lock(state.heartbeat_mutex);
        state.heartbeat_stop = true;
    }
    state.heartbeat_wake.notify_all();
    if (state.heartbeat.joinable()) state.heartbeat.join();
}

}  // namespace vertex::licence
