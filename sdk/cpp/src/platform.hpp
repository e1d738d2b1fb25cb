// What the SDK reads from the operating system, kept apart from the rest so that each platform's
// code is compiled (and cross-compiled for Windows) on its own.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace vertex::licence::platform {

/** The firmware's system UUID as the system gives it ("4c4c4544-…"), or nullopt when it cannot be read. */
std::optional<std::string> firmware_uuid();

/** The installation's own identity as "<kind>:<value>" (MachineGuid and volume serial, machine-id,
 *  host UUID), or nullopt when there is none. */
std::optional<std::string> installation_source();

/** The computer's name, in UTF-8; empty when the system has none to give. */
std::string computer_name();

/** The system UUID in an SMBIOS table as Windows hands it over (GetSystemFirmwareTable 'RSMB':
 *  an 8-byte header with the SMBIOS version, then the structures), in the form Linux and WMI print
 *  it; nullopt when the table has no system information structure. */
std::optional<std::string> smbios_system_uuid(const unsigned char* data, std::size_t size);

}  // namespace vertex::licence::platform
