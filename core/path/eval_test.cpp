#include "core/path/eval.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/source.h"
#include "formats/json/json_reader.h"

namespace jbx::path {
namespace {

Value json(std::string text) {
  auto src = Source::from_memory("test", std::move(text));
  JsonReader reader(*src, ReadOptions{}, JsonMode::single);
  TreeBuilder b;
  reader.read_document(b);
  return b.take();
}

Value num(std::string_view text) {
  Value v;
  v.type = Value::Type::number;
  v.text = text;
  return v;
}

/// Counts the scalars that reach the selector: what skipping saved.
class Counting final : public ForwardingHandler {
 public:
  using ForwardingHandler::ForwardingHandler;
  void int_value(std::int64_t v) override {
    ++scalars;
    next_.int_value(v);
  }
  void number_text(std::string_view t) override {
    ++scalars;
    next_.number_text(t);
  }
  void string_value(std::string_view s) override {
    ++scalars;
    next_.string_value(s);
  }
  int scalars = 0;
};

struct Collect final : public NodeSink {
  Handler* begin_node(std::span<const Step> loc) override {
    paths.push_back(normalized_path(loc));
    return &builder;
  }
  bool end_node() override {
    builder.end_document();
    values.push_back(builder.take());
    return static_cast<int>(values.size()) < limit;
  }
  std::vector<std::string> paths;
  std::vector<Value> values;
  TreeBuilder builder;
  int limit = 1 << 30;
};

/// Runs `query` on `doc` by streaming; returns the paths and how many
/// scalars the reader had to deliver.
std::pair<std::vector<std::string>, int> stream(const std::string& query,
                                                const Value& doc,
                                                int limit = 1 << 30) {
  Collect sink;
  sink.limit = limit;
  StreamSelector sel(parse(query), sink);
  Counting counting(sel);
  replay(doc, counting);
  sel.end_document();
  return {sink.paths, counting.scalars};
}

std::vector<std::string> tree_paths(const std::string& query,
                                    const Value& doc) {
  std::vector<std::string> out;
  for (const auto& [v, loc] : select(parse(query), doc)) {
    out.push_back(normalized_path(loc));
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(path_eval)

BOOST_AUTO_TEST_CASE(numbers_compare_exactly) {
  Value i;
  i.type = Value::Type::int64;
  i.i = -5;
  Value u;
  u.type = Value::Type::uint64;
  u.u = 18446744073709551615u;
  Value d;
  d.type = Value::Type::float64;
  d.d = 0.1;
  BOOST_TEST(compare_numbers(u, num("18446744073709551616")) == -1);
  BOOST_TEST(compare_numbers(u, num("1.8446744073709551615e19")) == 0);
  BOOST_TEST(compare_numbers(d, num("0.1")) == 0);
  BOOST_TEST(compare_numbers(d, num("0.10000000000000001")) == -1);
  BOOST_TEST(compare_numbers(i, num("-5.0")) == 0);
  BOOST_TEST(compare_numbers(i, num("-4.99")) == -1);
  BOOST_TEST(compare_numbers(num("1e400"), num("9e399")) == 1);
  BOOST_TEST(compare_numbers(num("-0"), num("0.0e7")) == 0);
  BOOST_TEST(compare_numbers(num("-1e-400"), num("0")) == -1);
  BOOST_TEST(compare_numbers(num("1.10"), num("11e-1")) == 0);
  Value nan;
  nan.type = Value::Type::float64;
  nan.d = std::nan("");
  BOOST_TEST(compare_numbers(nan, nan) == 2);
  BOOST_TEST(!values_equal(nan, nan));
}

BOOST_AUTO_TEST_CASE(number_shortcuts_agree_with_digits) {
  // Integers, doubles and spellings near the edges of each shortcut:
  // 2^53, 2^63, 19 digits, 18 after the point, equal values spelled apart.
  std::vector<Value> values;
  const auto add_int = [&](std::int64_t x) {
    Value v;
    v.type = Value::Type::int64;
    v.i = x;
    values.push_back(v);
  };
  const auto add_uint = [&](std::uint64_t x) {
    Value v;
    v.type = Value::Type::uint64;
    v.u = x;
    values.push_back(v);
  };
  const auto add_double = [&](double x) {
    Value v;
    v.type = Value::Type::float64;
    v.d = x;
    values.push_back(v);
  };
  const std::int64_t p53 = std::int64_t{1} << 53;
  for (const std::int64_t x :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{10},
        p53 - 1, p53, p53 + 1, -p53 - 1, std::int64_t{1} << 60,
        (std::int64_t{1} << 60) + 1, std::numeric_limits<std::int64_t>::max(),
        std::numeric_limits<std::int64_t>::min(),
        std::int64_t{1000000000000000000}}) {
    add_int(x);
  }
  for (const std::uint64_t x :
       {std::uint64_t{0}, std::uint64_t{1} << 63, (std::uint64_t{1} << 63) + 1,
        std::numeric_limits<std::uint64_t>::max(),
        std::uint64_t{10000000000000000000u}}) {
    add_uint(x);
  }
  for (const double x :
       {0.0, -0.0, 0.1, -0.1, 1.0, 1e18, 9007199254740992.0, 9007199254740994.0,
        1152921504606846976.0, 9223372036854775808.0, 18446744073709551616.0,
        1e300, 5e-324, 0.30000000000000004,
        std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity(), std::nan("")}) {
    add_double(x);
  }
  for (const char* t : {"0",
                        "-0",
                        "0.0",
                        "1",
                        "1.0",
                        "1.000000000000000000",
                        "0.1",
                        "0.10000000000000001",
                        "-21972.92",
                        "-21972.920",
                        "9007199254740993",
                        "1152921504606846976",
                        "1152921504606847000",
                        "1000000000000000000",
                        "999999999999999999.9",
                        "9223372036854775807",
                        "9223372036854775808",
                        "18446744073709551615",
                        "18446744073709551616",
                        "1234567890123456789",
                        "12345678901234567890",
                        "0.000000000000000001",
                        "0.0000000000000000001",
                        "1e18",
                        "1E+18",
                        "-1e-400",
                        "1e400",
                        "1.5e3"}) {
    values.push_back(num(t));
  }
  // And random ones of every kind.
  std::mt19937_64 rng(20261201);
  for (int k = 0; k < 300; ++k) {
    const std::uint64_t r = rng();
    switch (k % 5) {
      case 0:
        add_int(static_cast<std::int64_t>(r) >> (rng() % 64));
        break;
      case 1:
        add_uint(r >> (rng() % 64));
        break;
      case 2: {
        double d = 0;
        std::memcpy(&d, &r, sizeof d);
        add_double(std::isnan(d) ? 0.5 : d);
        break;
      }
      case 3:
        add_double(
            static_cast<double>(static_cast<std::int64_t>(r) >> (rng() % 64)));
        break;
      default: {
        std::string t = std::to_string(r >> (rng() % 64));
        const std::size_t point = rng() % (t.size() + 1);
        if (point < t.size()) t.insert(t.size() - point, ".");
        if (t.front() == '.') t.insert(0, "0");
        if (rng() % 2) t.insert(0, "-");
        values.push_back(num(t));
      }
    }
  }
  int disagreements = 0;
  for (const Value& a : values) {
    for (const Value& b : values) {
      const int fast = compare_numbers(a, b);
      const int slow = detail::compare_by_digits(a, b);
      if (fast != slow && disagreements++ < 10) {
        BOOST_ERROR("compare " << (a.type == Value::Type::number
                                       ? a.text
                                       : fmt::format("{}/{}/{}", a.i, a.u, a.d))
                               << " with "
                               << (b.type == Value::Type::number
                                       ? b.text
                                       : fmt::format("{}/{}/{}", b.i, b.u, b.d))
                               << ": " << fast << " by shortcut, " << slow
                               << " by digits");
      }
    }
  }
  BOOST_TEST(disagreements == 0);
}

BOOST_AUTO_TEST_CASE(streaming_skips_what_cannot_match) {
  const Value doc = json(R"({"skip":{"x":[1,2,3]},"keep":5,"s":"t"})");
  const auto [paths, scalars] = stream("$.keep", doc);
  BOOST_TEST(paths == std::vector<std::string>{"$['keep']"});
  BOOST_TEST(scalars == 1);
}

BOOST_AUTO_TEST_CASE(filters_build_only_what_they_read) {
  const Value doc = json(R"([{"p":1,"big":[1,2,3,4],"id":"a","t":"x"},)"
                         R"({"p":5,"big":[5,6,7,8],"id":"b","t":"y"}])");
  const auto [paths, scalars] = stream("$[?@.p > 2].id", doc);
  BOOST_TEST(paths == std::vector<std::string>{"$[1]['id']"});
  BOOST_TEST(scalars == 4);  // p and id of each; "big" and "t" skipped
}

BOOST_AUTO_TEST_CASE(pruned_trees_keep_indices) {
  const Value doc = json(R"({"a":[{"x":1},{"y":[0,{"z":2}]},{"z":3}]})");
  for (const char* q : {"$.a[1].y[1].z", "$..z", "$.a[?@.y[1]].y[-1]",
                        "$.a[-1].z", "$..[?@.z == 2]", "$.a[?@.z]..z"}) {
    BOOST_TEST_CONTEXT(q) {
      BOOST_TEST(stream(q, doc).first == tree_paths(q, doc));
    }
  }
}

BOOST_AUTO_TEST_CASE(descendants_keep_rfc_order) {
  const Value doc = json(R"({"x":{"a":1},"a":2,"l":[{"a":3},[{"a":4}]]})");
  const std::vector<std::string> want{"$['a']", "$['x']['a']", "$['l'][0]['a']",
                                      "$['l'][1][0]['a']"};
  BOOST_TEST(stream("$..a", doc).first == want);
  BOOST_TEST(tree_paths("$..a", doc) == want);
}

BOOST_AUTO_TEST_CASE(stops_when_the_sink_has_enough) {
  const Value doc = json(R"({"a":[1,2,3],"b":[4,5]})");
  Collect sink;
  sink.limit = 1;
  StreamSelector sel(parse("$.*[*]"), sink);
  BOOST_TEST(!replay(doc, sel));  // Flow::stop reached the reader
  BOOST_TEST(!sel.active());
  BOOST_TEST(sink.paths == std::vector<std::string>{"$['a'][0]"});
}

BOOST_AUTO_TEST_CASE(pointer_tokens_select_members_or_elements) {
  const Value doc = json(R"({"0":{"k":[10,20]},"a/b":{"m~n":true}})");
  BOOST_TEST(stream("$", doc).first.size() == 1u);
  Collect sink;
  evaluate(parse_pointer("/0/k/1"), doc, sink);
  BOOST_TEST(sink.paths == std::vector<std::string>{"$['0']['k'][1]"});
  Collect sink2;
  StreamSelector sel(parse_pointer("/a~1b/m~0n"), sink2);
  replay(doc, sel);
  BOOST_TEST(sink2.paths == std::vector<std::string>{"$['a/b']['m~n']"});
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace jbx::path
