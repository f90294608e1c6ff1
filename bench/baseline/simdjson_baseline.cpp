// The near-limit reference of bench/run: plain simdjson doing the least work
// each jbx command must also do. Not part of jbx and not a tool for users.
//
//   simdjson_baseline minify FILE     whitespace removal (simdjson::minify,
//                                     which does not validate)
//   simdjson_baseline parse FILE      full DOM parse, i.e. validation
//   simdjson_baseline serialize FILE  DOM parse, then compact output
//
// A FILE ending in .jsonl is parsed as one document per line (parse_many).
// The file is mapped with simdjson's padding, like jbx maps its input.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace {

// A read-only view of a file followed by at least SIMDJSON_PADDING zero
// bytes: an anonymous zeroed region with the file mapped over its start.
class PaddedMap {
 public:
  explicit PaddedMap(const char* path) {
    int fd = ::open(path, O_RDONLY);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      ::close(fd);
      return;
    }
    size_ = static_cast<std::size_t>(st.st_size);
    total_ = size_ + simdjson::SIMDJSON_PADDING;
    void* region =
        ::mmap(nullptr, total_, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
      ::close(fd);
      return;
    }
    if (size_ > 0 && ::mmap(region, size_, PROT_READ, MAP_PRIVATE | MAP_FIXED,
                            fd, 0) == MAP_FAILED) {
      ::munmap(region, total_);
      ::close(fd);
      return;
    }
    ::close(fd);
    data_ = static_cast<const char*>(region);
  }
  ~PaddedMap() {
    if (data_ != nullptr) ::munmap(const_cast<char*>(data_), total_);
  }
  PaddedMap(const PaddedMap&) = delete;
  PaddedMap& operator=(const PaddedMap&) = delete;

  bool ok() const { return data_ != nullptr; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t total_ = 0;
};

bool write_all(std::string_view s) {
  return std::fwrite(s.data(), 1, s.size(), stdout) == s.size();
}

int fail(const char* what, simdjson::error_code e) {
  std::fprintf(stderr, "simdjson_baseline: %s: %s\n", what,
               simdjson::error_message(e));
  return 2;
}

int run_minify(const PaddedMap& in) {
  std::unique_ptr<char[]> out(new char[in.size() + 1]);
  std::size_t out_len = 0;
  auto e = simdjson::minify(in.data(), in.size(), out.get(), out_len);
  if (e != simdjson::SUCCESS) return fail("minify", e);
  return write_all(std::string_view(out.get(), out_len)) ? 0 : 2;
}

// Batches of 4 MiB hold any single line of the bench workloads.
constexpr std::size_t kBatch = std::size_t{4} << 20;

int run_lines(const PaddedMap& in, bool serialize) {
  simdjson::dom::parser parser;
  simdjson::dom::document_stream docs;
  auto e = parser.parse_many(in.data(), in.size(), kBatch).get(docs);
  if (e != simdjson::SUCCESS) return fail("parse_many", e);
  std::string out;
  for (auto doc : docs) {
    simdjson::dom::element root;
    if ((e = doc.get(root)) != simdjson::SUCCESS) return fail("parse", e);
    if (!serialize) continue;
    out += simdjson::minify(root);
    out += '\n';
    if (out.size() >= (std::size_t{1} << 20)) {
      if (!write_all(out)) return 2;
      out.clear();
    }
  }
  return write_all(out) ? 0 : 2;
}

int run_document(const PaddedMap& in, bool serialize) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  auto e = parser.parse(in.data(), in.size(), false).get(root);
  if (e != simdjson::SUCCESS) return fail("parse", e);
  if (!serialize) return 0;
  std::string out = simdjson::minify(root);
  out += '\n';
  return write_all(out) ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: simdjson_baseline minify|parse|serialize FILE\n",
               stderr);
    return 2;
  }
  std::string_view mode = argv[1];
  std::string_view path = argv[2];
  PaddedMap in(argv[2]);
  if (!in.ok()) {
    std::fprintf(stderr, "simdjson_baseline: cannot map %s\n", argv[2]);
    return 2;
  }
  bool lines = path.size() > 6 && path.substr(path.size() - 6) == ".jsonl";
  if (mode == "minify") return run_minify(in);
  if (mode == "parse" || mode == "serialize") {
    bool serialize = mode == "serialize";
    return lines ? run_lines(in, serialize) : run_document(in, serialize);
  }
  std::fprintf(stderr, "simdjson_baseline: unknown mode %s\n", argv[1]);
  return 2;
}
