// The lease in one file and the newest answer seen in another beside it, each a header line, the
// signature line, then the body's exact bytes. Written to a temporary file and renamed over the old
// one, so a crash never leaves half an answer.
#include <fstream>
#include <iterator>
#include <system_error>

#include "vertex/licence.hpp"

namespace vertex::licence {
namespace {

constexpr std::string_view header = "vertex-licence-lease 1";

std::optional<StoredLease> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string first;
    StoredLease lease;
    if (!std::getline(in, first) || first != header || !std::getline(in, lease.signature)) return std::nullopt;
    lease.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return lease;
}

void write_file(const std::filesystem::path& path, const StoredLease& lease) {
    std::filesystem::path temporary = path;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << header << '\n' << lease.signature << '\n' << lease.body;
        if (!out.flush()) return;  // Nothing on disk only means no offline use; the check itself stands.
    }
    std::error_code ignored;
    std::filesystem::rename(temporary, path, ignored);
}

}  // namespace

FileLeaseStore::FileLeaseStore(std::filesystem::path path) : path_(std::move(path)), newest_(path_) { newest_ += ".newest"; }

std::optional<StoredLease> FileLeaseStore::read() { return read_file(path_); }

void FileLeaseStore::write(const StoredLease& lease) { write_file(path_, lease); }

void FileLeaseStore::clear() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
}

std::optional<StoredLease> FileLeaseStore::read_newest() { return read_file(newest_); }

void FileLeaseStore::write_newest(const StoredLease& answer) { write_file(newest_, answer); }

}  // namespace vertex::licence
