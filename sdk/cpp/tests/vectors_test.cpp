// The C++ verifier against every case of the shared conformance vectors (sdk/vectors), the same
// cases the TypeScript client and the server's own suite check.
#include <cmath>

#include "check.hpp"
#include "iso_time.hpp"
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

        const json::Value& clock = *vector.find("clock");
        ClockReading reading;
        reading.now_ms = ms_of(text(clock, "now"));
        if (clock.find("trustedTime")->is_string()) reading.trusted_ms = ms_of(text(clock, "trustedTime"));
        reading.drift_ms = static_cast<std::int64_t>(std::llround(clock.find("driftSeconds")->number * 1000));

        Result result;
        if (text(vector, "kind") == "online") {
            const json::Value& response = *vector.find("response");
            HttpResponse http;
            if (!response.find("network")) {
                http.status = static_cast<int>(response.find("status")->number);
                http.body = text(response, "body");
                if (response.find("signature")->is_string()) http.signature = text(response, "signature");
            }
            result = verifier.judge_answer(question, http, reading);
        } else {
            const json::Value& stored = *vector.find("stored");
            std::optional<StoredLease> lease;
            if (stored.type == json::Value::Type::object) lease = StoredLease{text(stored, "body"), text(stored, "signature")};
            result = verifier.judge_lease(question, lease, reading);
        }

        const json::Value& expect = *vector.find("expect");
        bool ok = to_string(result.outcome) == text(expect, "outcome");
        if (const json::Value* code = expect.find("code")) ok = ok && result.code == code->string;
        if (const json::Value* reason = expect.find("reason")) ok = ok && result.reason == reason->string;
        if (const json::Value* from_lease = expect.find("offline")) ok = ok && result.from_lease == from_lease->boolean;
        tally.expect(ok, name + " (got " + std::string(to_string(result.outcome)) + " " + result.code + result.reason + ")");
    }
    tally.expect(seen >= 40, "the vectors file holds its cases");
    return tally.finish();
}
