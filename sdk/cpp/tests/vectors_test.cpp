// The C++ verifier against every case of the shared conformance vectors (sdk/vectors), the same
// cases the TypeScript client and the server's own suite check: licence checks, offline leases,
// the answers to releases/latest and to deactivate; and the hardware id every SDK derives.
#include <cmath>

#include "check.hpp"
#include "iso_time.hpp"
#include "platform.hpp"
#include "vertex/licence.hpp"

using namespace vertex::licence;

namespace {

const std::string& text(const json::Value& object, std::string_view name) {
    const json::Value* member = object.find(name);
    if (!member || !member->is_string()) throw std::runtime_error("vectors: missing " + std::string(name));
    return member->string;
}

std::int64_t ms_of(const std::string& iso) {
    const auto ms = parse_iso(iso);
    if (!ms) throw std::runtime_error("vectors: not a timestamp: " + iso);
    return *ms;
}

ClockReading reading_of(const json::Value& vector) {
    const json::Value& clock = *vector.find("clock");
    ClockReading reading;
    reading.now_ms = ms_of(text(clock, "now"));
    if (clock.find("trustedTime")->is_string()) reading.trusted_ms = ms_of(text(clock, "trustedTime"));
    reading.drift_ms = static_cast<std::int64_t>(std::llround(clock.find("driftSeconds")->number * 1000));
    return reading;
}

HttpResponse response_of(const json::Value& vector) {
    const json::Value& response = *vector.find("response");
    HttpResponse http;
    if (!response.find("network")) {
        http.status = static_cast<int>(response.find("status")->number);
        http.body = text(response, "body");
        if (response.find("signature")->is_string()) http.signature = text(response, "signature");
    }
    return http;
}

/** Whether `result` is the conclusion `expect` states (outcome, and code, reason, offline, field when given). */
bool concludes(const Result& result, const json::Value& expect) {
    bool ok = to_string(result.outcome) == text(expect, "outcome");
    if (const json::Value* code = expect.find("code")) ok = ok && to_string(result.code) == code->string;
    if (const json::Value* reason = expect.find("reason")) ok = ok && to_string(result.reason) == reason->string;
    if (const json::Value* from_lease = expect.find("offline")) ok = ok && result.from_lease == from_lease->boolean;
    if (const json::Value* field = expect.find("field")) ok = ok && result.field == field->string;
    // The licence's end and where its owner renews it, as the program shows them (null: none).
    if (const json::Value* expires = expect.find("expiresAt")) {
        ok = ok && result.expires_at_ms == (expires->is_string() ? std::optional<std::int64_t>(ms_of(expires->string)) : std::nullopt);
    }
    if (const json::Value* renew = expect.find("renewUrl")) ok = ok && result.renew_url == (renew->is_string() ? renew->string : std::string());
    return ok;
}

std::string got(const Result& result) {
    return std::string(to_string(result.outcome)) + " " + std::string(to_string(result.code)) + std::string(to_string(result.reason)) + result.field;
}

std::vector<unsigned char> bytes_of(const std::string& hex) {
    std::vector<unsigned char> bytes(hex.size() / 2);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    return bytes;
}

/** The hardware id vectors: every source's id, the firmware UUIDs taken or refused, the SMBIOS tables read. */
void machine_ids(const json::Value& vectors, testing::Tally& tally) {
    for (const json::Value& vector : vectors.find("hardwareIds")->array) {
        tally.expect(hardware_id(text(vector, "salt"), text(vector, "source")) == text(vector, "hwid"), "hardware id: " + text(vector, "name"));
    }
    for (const json::Value& vector : vectors.find("firmwareUuids")->array) {
        const json::Value& source = *vector.find("source");
        const auto taken = firmware_source(text(vector, "uuid"));
        tally.expect(source.is_string() ? taken == source.string : !taken, "firmware UUID: " + text(vector, "name"));
    }
    for (const json::Value& vector : vectors.find("smbiosTables")->array) {
        const auto table = bytes_of(text(vector, "table"));
        tally.expect(platform::smbios_system_uuid(table.data(), table.size()) == text(vector, "uuid"), "SMBIOS table: " + text(vector, "name"));
    }
}

/** Whether the release offered is the one `expected` states (null: none). */
bool offers(const std::optional<Release>& release, const json::Value& expected) {
    if (expected.type == json::Value::Type::null) return !release;
    return release && release->version == text(expected, "version") && release->channel == text(expected, "channel") &&
           release->size == static_cast<std::int64_t>(expected.find("size")->number) && release->sha256 == text(expected, "sha256") &&
           release->url == text(expected, "url") && release->url_expires_at_ms == ms_of(text(expected, "urlExpiresAt"));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const json::Value vectors = testing::read_vectors(argv[1]);
    testing::Tally tally;
    int seen = 0;
    for (const json::Value& vector : vectors.find("cases")->array) {
        ++seen;
        const std::string& name = text(vector, "name");
        const json::Value& request = *vector.find("request");
        const json::Value* product = request.find("product");
        const Verifier verifier(text(vectors, "publicKey"), product ? product->string : std::string());
        const Question question{text(request, "key"), text(request, "hwid"), text(request, "nonce")};

        const ClockReading reading = reading_of(vector);
        Result result;
        if (text(vector, "kind") == "online") {
            result = verifier.judge_answer(question, response_of(vector), reading);
        } else {
            const json::Value& stored = *vector.find("stored");
            std::optional<StoredLease> lease;
            if (stored.type == json::Value::Type::object) lease = StoredLease{text(stored, "body"), text(stored, "signature")};
            result = verifier.judge_lease(question, lease, reading);
        }
        tally.expect(concludes(result, *vector.find("expect")), name + " (got " + got(result) + ")");
    }
    int releases = 0;
    for (const json::Value& vector : vectors.find("releaseCases")->array) {
        ++releases;
        const json::Value& request = *vector.find("request");
        const Verifier verifier(text(vectors, "publicKey"));
        const Question question{text(request, "key"), text(request, "hwid"), text(request, "nonce")};
        const LatestRelease answer = verifier.judge_release(question, text(request, "channel"), response_of(vector), reading_of(vector));
        const json::Value& expect = *vector.find("expect");
        const json::Value* error = expect.find("error");
        const bool ok = concludes(answer.licence, expect) && to_string(answer.error) == (error->is_string() ? error->string : std::string()) &&
                        offers(answer.release, *expect.find("release")) && answer.ok() == (error->type == json::Value::Type::null);
        tally.expect(ok, "release: " + text(vector, "name") + " (got " + got(answer.licence) + " " + std::string(to_string(answer.error)) + ")");
    }
    int deactivations = 0;
    for (const json::Value& vector : vectors.find("deactivationCases")->array) {
        ++deactivations;
        const json::Value& request = *vector.find("request");
        const Verifier verifier(text(vectors, "publicKey"));
        const Question question{text(request, "key"), text(request, "hwid"), text(request, "nonce")};
        const Deactivation answer = verifier.judge_deactivation(question, response_of(vector), reading_of(vector));
        tally.expect(concludes(answer.result, *vector.find("expect")), "deactivate: " + text(vector, "name") + " (got " + got(answer.result) + ")");
    }
    tally.expect(releases >= 10, "the vectors file holds its release cases");
    tally.expect(deactivations >= 4, "the vectors file holds its deactivation cases");
    tally.expect(seen >= 40, "the vectors file holds its cases");
    if (argc > 2) machine_ids(testing::read_vectors(argv[2]), tally);
    return tally.finish();
}
