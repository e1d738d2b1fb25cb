// Windows: MachineGuid (set at installation, read from the 64-bit registry view even in a 32-bit
// process) and the system volume's serial (set when it is formatted). Linux: /etc/machine-id (or
// D-Bus's copy). macOS: the host UUID. Each survives reinstalling the program.
#include "platform.hpp"

#include <stdexcept>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#elif defined(__APPLE__)
#include <unistd.h>
#include <uuid/uuid.h>
#else
#include <unistd.h>

#include <fstream>
#endif

namespace vertex::licence::platform {

#ifdef _WIN32
namespace {

std::string utf8(const wchar_t* text, int length) {
    const int size = WideCharToMultiByte(CP_UTF8, 0, text, length, nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
    if (size > 0) WideCharToMultiByte(CP_UTF8, 0, text, length, out.data(), size, nullptr, nullptr);
    return out;
}

}  // namespace

std::string machine_source() {
    wchar_t guid[64] = {};
    DWORD guid_bytes = sizeof guid;
    if (RegGetValueW(HKEY_LOCAL_MACHINE, L"SOFTWARE\\Microsoft\\Cryptography", L"MachineGuid", RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, nullptr, guid, &guid_bytes) !=
        ERROR_SUCCESS) {
        throw std::runtime_error("MachineGuid could not be read");
    }
    wchar_t windows[MAX_PATH] = {};
    DWORD serial = 0;
    const UINT length = GetSystemWindowsDirectoryW(windows, MAX_PATH);
    if (length >= 3 && length < MAX_PATH) {
        const wchar_t root[] = {windows[0], L':', L'\\', L'\0'};
        if (!GetVolumeInformationW(root, nullptr, 0, &serial, nullptr, nullptr, nullptr, 0)) serial = 0;
    }
    return "windows:" + utf8(guid, static_cast<int>(wcslen(guid))) + ":" + std::to_string(serial);
}

std::string computer_name() {
    wchar_t name[256] = {};
    DWORD size = 256;
    if (!GetComputerNameExW(ComputerNamePhysicalDnsHostname, name, &size)) return {};
    return utf8(name, static_cast<int>(size));
}

#elif defined(__APPLE__)

std::string machine_source() {
    uuid_t id = {};
    const timespec wait = {5, 0};
    if (gethostuuid(id, &wait) != 0) throw std::runtime_error("The host UUID could not be read");
    uuid_string_t text = {};
    uuid_unparse_lower(id, text);
    return std::string("macos:") + text;
}

std::string computer_name() {
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

#else

std::string machine_source() {
    for (const char* path : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
        std::ifstream in(path);
        std::string id;
        if (in && std::getline(in, id) && id.size() >= 16) return "linux:" + id;
    }
    throw std::runtime_error("/etc/machine-id could not be read");
}

std::string computer_name() {
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

#endif

}  // namespace vertex::licence::platform
