// What the SDK reads from the operating system, kept apart from the rest so that each platform's
// code is compiled (and cross-compiled for Windows) on its own.
#pragma once

#include <string>

namespace vertex::licence::platform {

/** The raw identity of this machine (never sent as is); throws std::runtime_error when there is none. */
std::string machine_source();

/** The computer's name, in UTF-8; empty when the system has none to give. */
std::string computer_name();

}  // namespace vertex::licence::platform
