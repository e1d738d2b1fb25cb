// A small JSON reader and string quoting for the SDK's own needs: the answer's body (read only
// after its signature verified) and the request it sends. Strict: anything RFC 8259 forbids fails.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vertex::licence::json {

struct Value {
    enum class Type { null, boolean, number, string, array, object } type = Type::null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Value> array;
    std::map<std::string, Value, std::less<>> object;

    /** The member `name` of an object, or nullptr when absent (or this is not an object). */
    const Value* find(std::string_view name) const;
    bool is_string() const { return type == Type::string; }
};

/** The document in `text`, or nullopt when it is not valid JSON. */
std::optional<Value> parse(std::string_view text);

/** `text` as a JSON string literal, quotes included. */
std::string quote(std::string_view text);

}  // namespace vertex::licence::json
