#include "core/source.h"

#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "core/test_pipe.h"

namespace jbx {
namespace {

using testing::Pipe;

// Bytes that differ from one offset to the next, so that a byte moved or
// lost shows.
std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = static_cast<char>('a' + (i * 7 + i / 251) % 26);
  }
  return s;
}

bool padded(std::string_view view) {
  const char* end = view.data() + view.size();
  return std::all_of(end, end + Source::kPadding,
                     [](char c) { return c == '\0'; });
}

BOOST_AUTO_TEST_SUITE(source)

BOOST_AUTO_TEST_CASE(a_pipe_read_whole_keeps_every_byte_and_the_padding) {
  // Empty, short, and over many reads (the first of 64 KiB, then 1 MiB).
  for (const std::size_t n : {std::size_t{0}, std::size_t{5},
                              std::size_t{65536}, std::size_t{3500000}}) {
    const std::string data = pattern(n);
    Pipe pipe(data, 4099);
    BOOST_REQUIRE(pipe.source().size_hint() < 0);
    const std::string_view all = pipe.source().whole();
    BOOST_TEST(all.size() == n);
    BOOST_TEST((all == data));
    BOOST_TEST(padded(all));
    BOOST_TEST(pipe.source().whole().data() == all.data());
  }
}

BOOST_AUTO_TEST_CASE(a_pipe_read_whole_after_a_peek) {
  const std::string data = pattern(200000);
  Pipe pipe(data, 1000);
  BOOST_TEST((pipe.source().peek(10) == std::string_view(data).substr(0, 10)));
  const std::string_view all = pipe.source().whole();
  BOOST_TEST((all == data));
  BOOST_TEST(padded(all));
}

BOOST_AUTO_TEST_CASE(a_pipe_read_through_windows) {
  // A reader that moves on by 100,000 bytes at a time, loading more when
  // its window runs short: every window is the input from its offset on,
  // padded, while the bytes behind it are dropped.
  const std::string data = pattern(5000000);
  Pipe pipe(data, 65537);
  Source& s = pipe.source();
  std::uint64_t at = 0;
  while (at < data.size()) {
    std::string_view w = s.window(at);
    while (w.size() < 100000 && !s.all_loaded()) {
      s.load_more();
      w = s.window(at);
    }
    BOOST_REQUIRE(!w.empty());
    BOOST_REQUIRE((w == std::string_view(data).substr(at, w.size())));
    BOOST_REQUIRE(padded(w));
    at += std::min<std::size_t>(w.size(), 100000);
  }
  BOOST_TEST(s.all_loaded());
  BOOST_TEST(s.window(at).empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace jbx
