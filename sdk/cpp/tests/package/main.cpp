// Links the installed SDK and uses it as a program does: the key compiled in, checked at build time.
#include <vertex/licence.hpp>

#include <cstdio>

static_assert(vertex::licence::is_public_key(VERTEX_SHOP_PUBLIC_KEY), "the build gives a public key");

int main() {
    const vertex::licence::Verifier verifier(VERTEX_SHOP_PUBLIC_KEY, "Vertex Rust");
    std::printf("%s\n", vertex::licence::compare_versions("1.10.0", "1.9.0") > 0 ? "the installed package works" : "wrong order");
    return vertex::licence::compare_versions("1.10.0", "1.9.0") > 0 ? 0 : 1;
}
