// The tests' own small harness: named expectations, a closing "N passed, N failed" line, and the
// conformance vectors file read with the SDK's JSON reader.
#pragma once

#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <sodium.h>

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

/** The shop's signing key from a seed (the vectors' published test seed): what test shops sign with. */
class TestSigner {
public:
    explicit TestSigner(const std::string& seed_hex) {
        unsigned char seed[32];
        sodium_hex2bin(seed, sizeof seed, seed_hex.c_str(), seed_hex.size(), nullptr, nullptr, nullptr);
        crypto_sign_seed_keypair(public_key_, secret_key_, seed);
    }
    std::string public_key_base64() const {
        char out[sodium_base64_ENCODED_LEN(crypto_sign_PUBLICKEYBYTES, sodium_base64_VARIANT_ORIGINAL)];
        sodium_bin2base64(out, sizeof out, public_key_, sizeof public_key_, sodium_base64_VARIANT_ORIGINAL);
        return out;
    }
    /** The base64 Ed25519 signature of `body`'s exact bytes, as the Licence-Signature header carries it. */
    std::string sign(const std::string& body) const {
        unsigned char signature[crypto_sign_BYTES];
        crypto_sign_detached(signature, nullptr, reinterpret_cast<const unsigned char*>(body.data()), body.size(), secret_key_);
        char encoded[sodium_base64_ENCODED_LEN(crypto_sign_BYTES, sodium_base64_VARIANT_ORIGINAL)];
        sodium_bin2base64(encoded, sizeof encoded, signature, sizeof signature, sodium_base64_VARIANT_ORIGINAL);
        return encoded;
    }

private:
    unsigned char public_key_[crypto_sign_PUBLICKEYBYTES];
    unsigned char secret_key_[crypto_sign_SECRETKEYBYTES];
};

inline json::Value read_vectors(const char* path) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto document = json::parse(text);
    if (!document) throw std::runtime_error(std::string("cannot read the vectors at ") + path);
    return *document;
}

}  // namespace vertex::licence::testing
