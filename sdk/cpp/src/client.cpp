// The client around the verifier: asks the shop with a fresh nonce (a check, the newest release, a
// release of this PC), keeps the newest signed time (in memory and in the lease store, so that it
// outlives the run) and the wall/monotonic anchor that the clock rules measure from, stores each
// answer about the key as the lease (a VALID one to work offline on, a signed refusal to keep
// refusing), and runs the optional heartbeat.
#include <sodium.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "answer.hpp"
#include "download.hpp"
#include "json.hpp"
#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

/** Answers kept only while the program runs. */
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

/** The key and PC a stored answer is about (read without its signature: only to decide what to keep). */
std::optional<Answer> about(const std::optional<StoredLease>& stored) { return stored ? read_answer(stored->body) : std::nullopt; }

/**
 * This machine's hardware id: from its preferred source, unless the stored lease was signed for
 * the id of another of its sources (a key bound by an earlier SDK, or while the firmware's UUID
 * could not be read): that PC keeps the id it is bound with.
 */
std::string choose_hwid(const Config& config, LeaseStore& store) {
    if (!config.hwid.empty()) return config.hwid;
    const std::vector<std::string> sources = machine_sources();
    if (sources.empty()) throw std::runtime_error("This computer has no machine identity to derive a hardware id from");
    std::vector<std::string> ids;
    for (const std::string& source : sources) ids.push_back(hardware_id(config.hwid_salt, source));
    if (const auto stored = about(store.read())) {
        for (const std::string& id : ids) {
            if (id == stored->hwid) return id;
        }
    }
    return ids.front();
}

}  // namespace

struct Client::State {
    explicit State(Config given)
        : config(std::move(given)),
          verifier(config.public_key, config.product, config.messages),
          transport(config.transport ? config.transport : default_transport()),
          store(store_for(config)),
          hwid(choose_hwid(config, *store)) {
        // The newest time a genuine answer carried, from an earlier run: an older lease put back
        // is stale, a clock set back before it is a rollback.
        if (const auto newest = store->read_newest()) trusted_ms = verifier.signed_time(*newest);
    }

    Result check(const std::string& key);
    Result ask(const std::string& key);
    HttpResponse call(std::string_view endpoint, const Question& sent, const std::string& extra) const;
    bool trust(const Result& judged, const HttpResponse& response);
    ClockReading read_clock() const;

    Config config;
    Verifier verifier;
    std::shared_ptr<Transport> transport;
    std::shared_ptr<LeaseStore> store;
    std::string hwid;

    // Calls run one at a time (the program's and the heartbeat's): these are theirs.
    std::mutex mutex;
    std::optional<std::int64_t> trusted_ms;
    std::chrono::system_clock::time_point anchor_wall = std::chrono::system_clock::now();
    std::chrono::steady_clock::time_point anchor_monotonic = std::chrono::steady_clock::now();
    std::optional<Result> latest;

    // The running heartbeat, if any: start and stop may be called from any thread, its callback included.
    std::mutex heartbeat_mutex;
    std::shared_ptr<Heartbeat> heartbeat;
};

/**
 * One heartbeat's thread, shared with the client: the thread owns what it needs (the client's
 * state included), so it is never joined while it waits on the network and may outlive the client.
 */
struct Client::Heartbeat {
    std::mutex mutex;
    std::condition_variable changed;
    bool stopped = false;
    // Asking the shop: a stop does not wait for that to end.
    bool asking = false;
    bool done = false;
    std::atomic<std::thread::id> thread{};
};

Client::Client(Config config) : state_(std::make_shared<State>(std::move(config))) {
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

Result Client::State::check(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex);
    latest = ask(key);
    return *latest;
}

Result Client::check(const std::string& key) { return state_->check(key); }

/** POSTs what every call sends (key, PC, nonce, device name) and `extra` members to `endpoint`. */
HttpResponse Client::State::call(std::string_view endpoint, const Question& sent, const std::string& extra) const {
    std::string body = "{\"key\":" + json::quote(sent.key) + ",\"hwid\":" + json::quote(sent.hwid) + ",\"nonce\":" + json::quote(sent.nonce);
    if (!config.device.empty()) body += ",\"device\":" + json::quote(config.device);
    body += extra + "}";
    return transport->post_json(api_url(config.base_url, endpoint), body, config.timeout);
}

/** After a judged answer: a genuine one moves the trusted time and the stored answers; false for any other. */
bool Client::State::trust(const Result& judged, const HttpResponse& response) {
    if (judged.outcome != Outcome::valid && judged.outcome != Outcome::denied) return false;
    // A genuine answer: the shop's time is now the program's, and drift is measured from here.
    trusted_ms = std::max(trusted_ms.value_or(judged.issued_at_ms), judged.issued_at_ms);
    anchor_wall = std::chrono::system_clock::now();
    anchor_monotonic = std::chrono::steady_clock::now();
    const StoredLease answer{response.body, response.signature};
    store->write_newest(answer);
    // The latest word about the key stands in offline: a VALID answer's lease, or the signed refusal
    // that ended it. A refusal about another key (a typing slip) leaves this key's lease alone.
    if (judged.outcome == Outcome::valid) {
        store->write(answer);
    } else {
        const auto kept = about(store->read());
        const auto refused = about(answer);
        if (!kept || !refused || kept->key == refused->key) store->write(answer);
    }
    return true;
}

Result Client::State::ask(const std::string& key) {
    const Question sent{key, hwid, fresh_nonce()};
    const HttpResponse response = call("licences/validate", sent, {});
    Result judged = verifier.judge_answer(sent, response, read_clock());
    if (trust(judged, response) || judged.outcome == Outcome::tampered || judged.outcome == Outcome::invalid_request) return judged;

    // No signed verdict: the stored answer decides, and says why in its own words.
    Result leased = verifier.judge_lease(sent, store->read(), read_clock());
    leased.network = judged.reason;
    leased.retry_after_seconds = judged.retry_after_seconds;
    if (leased.outcome == Outcome::offline) {
        leased.message = judged.message + " " + leased.message;
        leased.api_code = judged.api_code;
    }
    return leased;
}

LatestRelease Client::latest_release(const std::string& key, const std::string& channel) {
    State& state = *state_;
    const std::lock_guard<std::mutex> lock(state.mutex);
    const Question sent{key, state.hwid, fresh_nonce()};
    const HttpResponse response = state.call("releases/latest", sent, ",\"channel\":" + json::quote(channel));
    LatestRelease answer = state.verifier.judge_release(sent, channel, response, state.read_clock(), state.config.version);
    state.trust(answer.licence, response);
    return answer;
}

DownloadResult Client::download_release(const Release& release, const std::filesystem::path& path) {
    return vertex::licence::download_release(*state_->transport, release, path, state_->config.timeout, state_->verifier);
}

Deactivation Client::deactivate(const std::string& key) {
    State& state = *state_;
    const std::lock_guard<std::mutex> lock(state.mutex);
    const Question sent{key, state.hwid, fresh_nonce()};
    const HttpResponse response = state.call("licences/deactivate", sent, {});
    Deactivation answer = state.verifier.judge_deactivation(sent, response, state.read_clock());
    if (answer.result.outcome == Outcome::valid || answer.result.outcome == Outcome::denied) {
        state.trusted_ms = std::max(state.trusted_ms.value_or(answer.result.issued_at_ms), answer.result.issued_at_ms);
        state.store->write_newest(StoredLease{response.body, response.signature});
        // Released: this PC's lease no longer stands for anything.
        if (answer.ok()) state.store->clear();
    }
    return answer;
}

void Client::start_heartbeat(std::string key, std::function<void(const Result&)> on_change, std::optional<std::chrono::seconds> interval) {
    stop_heartbeat();
    const auto beat = std::make_shared<Heartbeat>();
    std::shared_ptr<State> state = state_;
    std::optional<Result> latest;
    {
        const std::lock_guard<std::mutex> lock(state->mutex);
        latest = state->latest;
    }
    {
        const std::lock_guard<std::mutex> lock(state->heartbeat_mutex);
        state->heartbeat = beat;
    }
    const auto chosen = interval ? std::max(*interval, min_heartbeat_interval) : std::chrono::seconds{0};
    std::thread([state, beat, key = std::move(key), on_change = std::move(on_change), chosen, latest = std::move(latest)] {
        beat->thread = std::this_thread::get_id();
        struct Done {
            Heartbeat& beat;
            ~Done() {
                const std::lock_guard<std::mutex> lock(beat.mutex);
                beat.done = true;
                beat.changed.notify_all();
            }
        } done{*beat};
        // One check, with the stop's waiting released while it runs; nullopt once stopped.
        const auto ask = [&]() -> std::optional<Result> {
            {
                const std::lock_guard<std::mutex> lock(beat->mutex);
                if (beat->stopped) return std::nullopt;
                beat->asking = true;
                beat->changed.notify_all();
            }
            Result result = state->check(key);
            const std::lock_guard<std::mutex> lock(beat->mutex);
            beat->asking = false;
            if (beat->stopped) return std::nullopt;
            return result;
        };
        // Changes are measured from what the program last saw, not from a check of the heartbeat's own.
        std::optional<Result> last = latest ? latest : ask();
        while (last) {
            // The server's suggestion (VALID answers: 10 minutes), unless the program chose its own;
            // never sooner than a 429 asked.
            std::chrono::seconds wait = chosen.count() > 0 ? chosen : std::chrono::seconds{last->recheck_after_seconds > 0 ? last->recheck_after_seconds : 600};
            wait = std::max({wait, min_heartbeat_interval, std::chrono::seconds{last->retry_after_seconds}});
            {
                std::unique_lock<std::mutex> lock(beat->mutex);
                if (beat->changed.wait_for(lock, wait, [&] { return beat->stopped; })) return;
            }
            std::optional<Result> next = ask();
            if (!next) return;
            const bool changed = next->outcome != last->outcome || next->code != last->code;
            last = std::move(next);
            // A stop from another thread waits for this call to return; one from inside it does not.
            if (changed) on_change(*last);
        }
    }).detach();
}

void Client::stop_heartbeat() {
    std::shared_ptr<Heartbeat> beat;
    {
        const std::lock_guard<std::mutex> lock(state_->heartbeat_mutex);
        beat = std::move(state_->heartbeat);
    }
    if (!beat) return;
    std::unique_lock<std::mutex> lock(beat->mutex);
    beat->stopped = true;
    beat->changed.notify_all();
    // From its own callback, the heartbeat ends when the callback returns. From elsewhere, wait
    // until it has ended or is asking the shop (it then ends without calling back): never for
    // the network, but never returning while a callback still runs.
    if (beat->thread.load() != std::this_thread::get_id()) beat->changed.wait(lock, [&] { return beat->done || beat->asking; });
}

}  // namespace vertex::licence
