// Reading a signed answer's body. Every field the program uses is read here, in one place, so that
// a field the shop adds to its answers is added to the SDK here and in Answer.
#include "answer.hpp"

#include "iso_time.hpp"
#include "json.hpp"

namespace vertex::licence {
namespace {

const std::string* string_of(const json::Value& object, std::string_view name) {
    const json::Value* member = object.find(name);
    return member && member->is_string() ? &member->string : nullptr;
}

/** The `licence` object's terms; false when a field it has is not the API's shape. */
bool read_licence(const json::Value& licence, Answer& answer) {
    if (const std::string* product = string_of(licence, "product")) answer.product = *product;
    if (const std::string* plan = string_of(licence, "plan")) answer.plan = *plan;
    if (const std::string* expires = string_of(licence, "expiresAt")) {
        answer.expires_at_ms = parse_iso(*expires);
        if (!answer.expires_at_ms) return false;
    }
    // null or absent: the licence cannot be renewed.
    if (const std::string* renew = string_of(licence, "renewUrl")) answer.renew_url = *renew;
    // Absent: the licence grants no entitlements.
    if (const json::Value* granted = licence.find("entitlements"); granted && granted->type == json::Value::Type::array) {
        for (const json::Value& name : granted->array) {
            if (name.is_string()) answer.entitlements.push_back(name.string);
        }
    }
    return true;
}

}  // namespace

std::optional<Answer> read_answer(std::string_view body) {
    const auto document = json::parse(body);
    if (!document) return std::nullopt;
    Answer answer;
    const std::string* code = string_of(*document, "code");
    const std::string* key = string_of(*document, "key");
    const std::string* hwid = string_of(*document, "hwid");
    const std::string* nonce = string_of(*document, "nonce");
    const std::string* issued = string_of(*document, "issuedAt");
    if (!code || !key || !hwid || !nonce || !issued) return std::nullopt;
    const auto issued_at = parse_iso(*issued);
    if (!issued_at) return std::nullopt;
    answer.code = *code;
    answer.key = *key;
    answer.hwid = *hwid;
    answer.nonce = *nonce;
    answer.issued_at_ms = *issued_at;
    if (const json::Value* ttl = document->find("ttl"); ttl && ttl->type == json::Value::Type::number) answer.ttl = static_cast<std::int64_t>(ttl->number);
    if (const json::Value* licence = document->find("licence"); licence && licence->type == json::Value::Type::object && !read_licence(*licence, answer)) {
        return std::nullopt;
    }
    if (const json::Value* lease = document->find("lease"); lease && lease->type == json::Value::Type::object) {
        const std::string* until = string_of(*lease, "until");
        if (!until || !(answer.lease_until_ms = parse_iso(*until))) return std::nullopt;
    }
    return answer;
}

}  // namespace vertex::licence
