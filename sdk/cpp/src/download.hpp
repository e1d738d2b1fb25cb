// The release download behind Client::download_release, apart from the client so that it can be
// driven with any transport.
#pragma once

#include <chrono>
#include <filesystem>

#include "vertex/licence.hpp"

namespace vertex::licence {

/** `words`: the sentences the result's message is made of (the client's verifier holds the program's). */
DownloadResult download_release(Transport& transport, const Release& release, const std::filesystem::path& path, std::chrono::milliseconds stall,
                                const Verifier& words);

}  // namespace vertex::licence
