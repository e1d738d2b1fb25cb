// The lease in one file: a header line, the signature line, then the body's exact bytes. Written
// to a temporary file and renamed over the old one, so a crash never leaves half a lease.
#include <fstream>
#include <iterator>
#include <system_error>

#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {
constexpr std::string_view header = "vertex-licence-lease 1";
}

FileLeaseStore::FileLeaseStore(std::filesystem::path path) : path_(std::move(path)) {}

std::optional<StoredLease> FileLeaseStore::read() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return std::nullopt;
    std::string first;
    StoredLease lease;
    if (!std::getline(in, first) || first != header || !std::getline(in, lease.signature)) return std::nullopt;
    lease.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return lease;
}

void FileLeaseStore::write(const StoredLease& lease) {
    std::filesystem::path temporary = path_;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << header << '\n' << lease.signature << '\n' << lease.body;
        if (!out.flush()) return;  // No lease on disk only means no offline use; the check itself stands.
    }
    std::error_code ignored;
    std::filesystem::rename(temporary, path_, ignored);
}

void FileLeaseStore::clear() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
}

}  // namespace vertex::licence
