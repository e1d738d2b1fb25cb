// How long the program waits on the SDK's own work: verifying a signed answer (online) and judging
// the stored lease (offline), over the conformance vectors' genuine VALID answer. Prints one JSON line.
#include <chrono>
#include <cstdio>

#include "check.hpp"
#include "vertex/licence.hpp"

using namespace vertex::licence;

namespace {

template <typename Work>
double microseconds_per_call(int calls, Work work) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) work();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const json::Value vectors = testing::read_vectors(argv[1]);
    const json::Value& valid = vectors.find("cases")->array.front();
    const json::Value& request = *valid.find("request");
    const Question question{request.find("key")->string, request.find("hwid")->string, request.find("nonce")->string};
    const json::Value& response = *valid.find("response");
    const HttpResponse http{200, response.find("body")->string, response.find("signature")->string, 0};
    const StoredLease lease{http.body, http.signature};
    const Verifier verifier(vectors.find("publicKey")->string);
    const ClockReading at_issue{1'894'708'800'000 + 3'600'000, std::nullopt, 0};

    const int calls = 20000;
    int valid_count = 0;
    const double online = microseconds_per_call(calls, [&] { valid_count += verifier.judge_answer(question, http, at_issue).ok(); });
    const double offline = microseconds_per_call(calls, [&] { valid_count += verifier.judge_lease(question, lease, at_issue).ok(); });
    std::printf("{\"calls\":%d,\"answerMicroseconds\":%.1f,\"leaseMicroseconds\":%.1f,\"allValid\":%s}\n", calls, online, offline, valid_count == 2 * calls ? "true" : "false");
    return valid_count == 2 * calls ? 0 : 1;
}
