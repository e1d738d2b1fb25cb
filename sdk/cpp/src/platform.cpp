// The machine's identity as each system gives it. The firmware's system UUID (SMBIOS) survives
// reinstalling the system; the installation's own ids (Windows: MachineGuid, set at installation
// and read from the 64-bit registry view even in a 32-bit process, and the system volume's serial,
// set when it is formatted; Linux: /etc/machine-id or D-Bus's copy; macOS: the host UUID) survive
// reinstalling the program only.
#include "platform.hpp"

#include <cstdio>
#include <vector>

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

std::optional<std::string> smbios_system_uuid(const unsigned char* data, std::size_t size) {
    // The header: calling method, major and minor version, DMI revision, then the table's length.
    if (size < 8) return std::nullopt;
    const int version = data[1] * 0x100 + data[2];
    std::size_t at = 8;
    while (at + 4 <= size) {
        const unsigned type = data[at];
        const std::size_t length = data[at + 1];
        if (length < 4 || at + length > size) return std::nullopt;
        // Type 1 (system information) holds the UUID at offset 8, from SMBIOS 2.1 on.
        if (type == 1 && length >= 0x19) {
            const unsigned char* id = data + at + 8;
            // From SMBIOS 2.6 the first three fields are little-endian; Linux and Windows print them so.
            static const int swapped[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
            char text[37];
            std::size_t out = 0;
            for (int i = 0; i < 16; ++i) {
                if (i == 4 || i == 6 || i == 8 || i == 10) text[out++] = '-';
                std::snprintf(text + out, 3, "%02x", id[version >= 0x0206 ? swapped[i] : i]);
                out += 2;
            }
            return std::string(text, out);
        }
        if (type == 127) return std::nullopt;  // the end of the table
        // Past the formatted part, the strings end with two zero bytes.
        std::size_t next = at + length;
        while (next + 1 < size && (data[next] != 0 || data[next + 1] != 0)) ++next;
        at = next + 2;
    }
    return std::nullopt;
}

#ifdef _WIN32
namespace {

std::string utf8(const wchar_t* text, int length) {
    const int size = WideCharToMultiByte(CP_UTF8, 0, text, length, nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
    if (size > 0) WideCharToMultiByte(CP_UTF8, 0, text, length, out.data(), size, nullptr, nullptr);
    return out;
}

}  // namespace

std::optional<std::string> firmware_uuid() {
    const DWORD raw_smbios = ('R' << 24) | ('S' << 16) | ('M' << 8) | 'B';
    const UINT size = GetSystemFirmwareTable(raw_smbios, 0, nullptr, 0);
    if (size == 0) return std::nullopt;
    std::vector<unsigned char> table(size);
    if (GetSystemFirmwareTable(raw_smbios, 0, table.data(), size) != size) return std::nullopt;
    return smbios_system_uuid(table.data(), table.size());
}

std::optional<std::string> installation_source() {
    wchar_t guid[64] = {};
    DWORD guid_bytes = sizeof guid;
    if (RegGetValueW(HKEY_LOCAL_MACHINE, L"SOFTWARE\\Microsoft\\Cryptography", L"MachineGuid", RRF_RT_REG_SZ | RRF_SUBKEY_WOW6464KEY, nullptr, guid, &guid_bytes) !=
        ERROR_SUCCESS) {
        return std::nullopt;
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

// A Mac's host UUID is its hardware's: it is what the firmware UUID is elsewhere, kept under its
// own kind so that ids made by earlier versions stay the same.
std::optional<std::string> firmware_uuid() { return std::nullopt; }

std::optional<std::string> installation_source() {
    uuid_t id = {};
    const timespec wait = {5, 0};
    if (gethostuuid(id, &wait) != 0) return std::nullopt;
    uuid_string_t text = {};
    uuid_unparse_lower(id, text);
    return std::string("macos:") + text;
}

std::string computer_name() {
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

#else

namespace {

std::optional<std::string> first_line(const char* path) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line)) return line;
    return std::nullopt;
}

}  // namespace

// Readable by root only on most systems: a program run by a user falls back to the machine-id.
std::optional<std::string> firmware_uuid() { return first_line("/sys/class/dmi/id/product_uuid"); }

std::optional<std::string> installation_source() {
    for (const char* path : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
        const auto id = first_line(path);
        if (id && id->size() >= 16) return "linux:" + *id;
    }
    return std::nullopt;
}

std::string computer_name() {
    char name[256] = {};
    return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

#endif

}  // namespace vertex::licence::platform
