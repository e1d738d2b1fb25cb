// The tests' own small harness: named expectations, a closing "N passed, N failed" line, and the
// conformance vectors file read with the SDK's JSON reader.
#pragma once

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "json.hpp"

namespace vertex::licence::testing {

class Tally {
public:
    void expect(bool ok, const std::string& name) {
        if (ok) {
            ++passed_;
        } else {
            ++failed_;
            std::printf("FAIL: %s\n", name.c_str());
        }
    }
    int finish() const {
        std::printf("%d passed, %d failed\n", passed_, failed_);
        return failed_ == 0 && passed_ > 0 ? 0 : 1;
    }

private:
    int passed_ = 0;
    int failed_ = 0;
};

inline json::Value read_vectors(const char* path) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto document = json::parse(text);
    if (!document) throw std::runtime_error(std::string("cannot read the vectors at ") + path);
    return *document;
}

}  // namespace vertex::licence::testing
