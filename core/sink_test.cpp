#include "core/sink.h"

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

namespace {

// A temporary file standing in for stdout; read() returns what reached it.
struct TempFd {
  std::FILE* file = std::tmpfile();
  int fd = file != nullptr ? ::fileno(file) : -1;
  TempFd() { BOOST_REQUIRE(fd >= 0); }
  ~TempFd() { std::fclose(file); }
  std::string read() const {
    std::string got;
    char buf[65536];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd, buf, sizeof buf, at);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
    return got;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sink)

BOOST_AUTO_TEST_CASE(dropped_document_never_reaches_the_fd) {
  TempFd f;
  jbx::FdSink sink(f.fd, "<file>");
  sink.mark_document();
  sink.write("[1]\n");
  sink.mark_document();
  // Larger than the sink's block: the first document goes out, the
  // second is held back whole.
  const std::string half(1 << 20, 'x');
  sink.write(half);
  BOOST_TEST(f.read() == "[1]\n");
  BOOST_TEST(sink.drop_document());
  sink.write("[2]\n");
  sink.flush();
  BOOST_TEST(f.read() == "[1]\n[2]\n");
}

BOOST_AUTO_TEST_CASE(document_too_large_to_hold_is_streamed) {
  TempFd f;
  jbx::FdSink sink(f.fd, "<file>");
  sink.mark_document();
  const std::string big(std::size_t{6} << 20, 'y');
  sink.write(big);
  // Past the hold-back limit some of it has gone out: it cannot be taken
  // back, and nothing is lost.
  BOOST_TEST(!sink.drop_document());
  sink.flush();
  BOOST_TEST(f.read().size() == big.size());
}

BOOST_AUTO_TEST_CASE(held_documents_keep_their_bytes_across_growth) {
  // Written in small pieces, a held document moves from the first block
  // to the large one; a later write larger than any block replaces it.
  TempFd f;
  jbx::FdSink sink(f.fd, "<file>");
  std::string expected;
  sink.mark_document();
  for (int i = 0; i < 3000; ++i) {
    const std::string piece(1000, static_cast<char>('a' + i % 26));
    sink.write(piece);
    expected += piece;
  }
  sink.mark_document();
  const std::string big(std::size_t{9} << 20, 'q');
  sink.write(big);
  expected += big;
  sink.mark_document();
  sink.write("[3]\n");
  expected += "[3]\n";
  sink.flush();
  BOOST_TEST(f.read() == expected);
}

BOOST_AUTO_TEST_CASE(large_writes_go_out_at_once_after_what_is_buffered) {
  // Nothing held: a write larger than the room left goes to the fd whole,
  // after the bytes buffered before it, and later bytes follow it.
  TempFd f;
  jbx::FdSink sink(f.fd, "<file>");
  sink.write("head\n");
  const std::string big(300000, 'b');
  sink.write(big);
  BOOST_TEST(f.read() == "head\n" + big);
  sink.write("tail\n");
  sink.flush();
  BOOST_TEST(f.read() == "head\n" + big + "tail\n");
}

BOOST_AUTO_TEST_CASE(large_writes_stay_held_in_a_held_document) {
  TempFd f;
  jbx::FdSink sink(f.fd, "<file>");
  sink.write("[1]\n");
  sink.mark_document();
  sink.write(std::string(300000, 'h'));
  BOOST_TEST(f.read() == "[1]\n");
  BOOST_TEST(sink.drop_document());
  sink.flush();
  BOOST_TEST(f.read() == "[1]\n");
}

BOOST_AUTO_TEST_CASE(atomic_file_sink_writes_large_pieces_in_order) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("jbx-sink-test-" + std::to_string(::getpid())))
                               .string();
  const std::string big(300000, 'a');
  {
    jbx::AtomicFileSink sink(path);
    sink.write("head\n");
    sink.write(big);
    sink.write("tail\n");
    sink.commit();
  }
  std::string got;
  if (std::FILE* file = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) got.append(buf, n);
    std::fclose(file);
  }
  std::remove(path.c_str());
  BOOST_TEST(got == "head\n" + big + "tail\n");
}

BOOST_AUTO_TEST_CASE(string_sink_drop_survives_growth) {
  jbx::StringSink sink;
  sink.write("keep\n");
  sink.mark_document();
  sink.write(std::string(100000, 'z'));
  BOOST_TEST(sink.drop_document());
  BOOST_TEST(sink.data() == "keep\n");
}

BOOST_AUTO_TEST_SUITE_END()
