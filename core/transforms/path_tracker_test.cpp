#include "core/transforms/path_tracker.h"

#include <boost/test/unit_test.hpp>

#include <deque>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tf = jbx::transforms;
namespace path = jbx::path;

namespace {

/// Walks random trees through a PathTracker and checks, at every value,
/// the rule it says selects the value against path::Matcher.
class Walk {
 public:
  /// `counting`: some elements of arrays are counted (count_element())
  /// instead of entered, when the tracker allows it, and then entered
  /// later (enter_counted()) or passed as nothing.
  explicit Walk(const std::vector<std::string>& rules, bool counting = false)
      : counting_(counting) {
    for (const std::string& r : rules) {
      // "[0:]", which only rules the program makes hold, is matched by
      // selects() below (path::Matcher takes no slice).
      if (r.find("[0:]") != std::string::npos) {
        queries_.push_back(path::parse(r));
        matchers_.emplace_back(std::nullopt);
      } else {
        queries_.push_back(tf::parse_rule_path("test", r));
        matchers_.emplace_back(queries_.back());
      }
      for (const path::Segment& seg : queries_.back().segments) {
        for (const path::Selector& sel : seg.selectors) {
          uniform_ = uniform_ && (sel.kind == path::Selector::Kind::name ||
                                  sel.kind == path::Selector::Kind::wildcard ||
                                  sel.kind == path::Selector::Kind::slice);
        }
      }
    }
    tracker_.emplace(queries_);
    uniform_ = uniform_ && tracker_->replayable();
    for (std::size_t end = 0; end <= queries_.size(); ++end) {
      waiting_.push_back(tracker_->waiting_states(end));
    }
  }

  void document(unsigned seed) {
    rng_.seed(seed);
    value(0);
  }

 private:
  int expected(std::size_t from = 0) const {
    for (std::size_t r = from; r < matchers_.size(); ++r) {
      if (matchers_[r] ? matchers_[r]->selects(location_)
                       : selects(queries_[r].segments, 0, 0)) {
        return static_cast<int>(r);
      }
    }
    return -1;
  }

  // The current value, entered by its caller.
  void value(int depth) {
    tf::PathTracker& t = *tracker_;
    const int want = expected();
    BOOST_TEST(t.selected() == want, path::normalized_path(location_));
    // The rules of a second kind, from a later index on.
    const std::size_t from = pick_() % (matchers_.size() + 1);
    BOOST_TEST(t.selected(from) == expected(from),
               path::normalized_path(location_));
    if (want >= 0) {
      BOOST_TEST(t.normalized_path() == path::normalized_path(location_));
    }
    const unsigned kind = depth < 4 ? rng_() % 3 : 0;
    if (kind == 0) {
      t.on_value_end();
      return;
    }
    const bool array = kind == 1;
    t.on_open(array);
    if (array) check_elements();
    const std::size_t n = rng_() % 4;
    // The context an element of this array is entered in.
    std::optional<tf::PathTracker::Context> element;
    for (std::size_t i = 0; i < n; ++i) {
      if (array) {
        location_.push_back(path::Step::element(i));
        if (counting_ && element && rng_() % 2 == 0 &&
            t.counts_elements(*element)) {
          BOOST_TEST(expected() == -1);  // (nothing selected: counted)
          t.count_element();
          BOOST_TEST(!t.entered());
          if (rng_() % 2 == 0) {
            t.on_value_end();  // passed as nothing
          } else {
            t.enter_counted();
            BOOST_TEST(t.entered());
            value(depth + 1);
          }
          location_.pop_back();
          continue;
        }
        t.on_value_begin();
        if (counting_ && !element && t.replayable()) element = t.context();
      } else {
        static const char* const kNames[] = {"a", "b", "c", "x", "y"};
        names_.emplace_back(kNames[rng_() % 5]);
        location_.push_back(path::Step::member(names_.back()));
        const std::size_t first = pick_() % (matchers_.size() + 1);
        BOOST_TEST(t.selects_member(names_.back(), first) == expected(first),
                   path::normalized_path(location_));
        // A rule before `first` that selects the member waits for a
        // segment at the object.
        const int rule = t.selects_member(names_.back());
        if (rule >= 0 && static_cast<std::size_t>(rule) < first) {
          BOOST_TEST(t.reaches_below(waiting_[first]),
                     path::normalized_path(location_));
        }
        if (first == 0) BOOST_TEST(!t.reaches_below(waiting_[0]));
        // A name that stays valid is kept uncopied: the paths checked
        // above read it where it is.
        t.on_key(names_.back(), rng_() % 2 == 0);
        t.on_value_begin();
      }
      value(depth + 1);
      location_.pop_back();
    }
    t.on_close();
  }

  // selects_no_element() of the array just opened: never true when a rule
  // selects one of its elements; with rules that do not tell elements
  // apart (names and wildcards), true exactly when none is selected,
  // unless nothing below can match at all.
  void check_elements() {
    bool none = true;
    for (const std::uint64_t i : {0, 1, 5}) {
      location_.push_back(path::Step::element(i));
      none = none && expected() == -1;
      location_.pop_back();
    }
    const bool said = tracker_->selects_no_element();
    BOOST_TEST((!said || none), path::normalized_path(location_));
    if (uniform_ && !tracker_->dead()) {
      BOOST_TEST(said == none, path::normalized_path(location_));
    }
  }

  // Whether segments [j, end) select location_ from its step k on.
  bool selects(const std::vector<path::Segment>& segs, std::size_t j,
               std::size_t k) const {
    if (j == segs.size()) return k == location_.size();
    const path::Segment& seg = segs[j];
    // A descendant segment selects among the children of the node at k
    // and of each node below it.
    for (std::size_t m = k; m < location_.size(); ++m) {
      for (const path::Selector& sel : seg.selectors) {
        if (path::selects_step(sel, location_[m]) &&
            selects(segs, j + 1, m + 1)) {
          return true;
        }
      }
      if (!seg.descendant) break;
    }
    return false;
  }

  bool counting_ = false;
  bool uniform_ = true;
  std::vector<path::Query> queries_;
  std::vector<std::optional<path::Matcher>> matchers_;
  std::vector<std::vector<std::uint64_t>> waiting_;  // per end
  std::optional<tf::PathTracker> tracker_;
  std::vector<path::Step> location_;
  std::deque<std::string> names_;  // the names location_ points at
  std::mt19937 rng_;
  std::mt19937 pick_;  // what is checked, apart from the document's shape
};

// `n` rules that select nothing in the walks (names they never use), then
// `rules`: the rules that select are in the last words of states.
std::vector<std::string> after_unused(std::size_t n,
                                      std::vector<std::string> rules) {
  std::vector<std::string> all;
  for (std::size_t i = 0; i < n; ++i) {
    all.push_back(i % 2 == 0 ? "$..n" + std::to_string(i)
                             : "$[*].n" + std::to_string(i) + "[*]");
  }
  all.insert(all.end(), rules.begin(), rules.end());
  return all;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(path_tracker)

BOOST_AUTO_TEST_CASE(selects_what_the_matcher_selects) {
  // Rules that tell elements apart (indices) and rules that do not, whose
  // elements are entered alike after the first.
  const std::vector<std::vector<std::string>> sets = {
      {"$[*].a"},
      {"$[1].b"},
      {"$..c"},
      {"$[*][0]", "$.x[*].y"},
      {"$[*].*", "$[2]"},
      {"$..[1]", "$..a[*]"},
      {"$[*].x[*]", "$..y", "$[0]"},
      // Segments of several selectors, and names after descendants, which
      // entering a member compares apart from the plain names.
      {"$['a','b'].c", "$..['x','y'][0]"},
      {"$.a..b", "$..a..b.c"},
      {"$..*.x", "$..['c',1]"},
  };
  for (const auto& rules : sets) {
    for (unsigned seed = 0; seed < 300; ++seed) {
      Walk w(rules);
      w.document(seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(tells_arrays_whose_elements_no_rule_selects) {
  // Checked at every array by check_elements(): descendant names (the
  // arrays of a record under `$..tags`), wildcards that select elements
  // at some depths only, the root, and indices (never said).
  const std::vector<std::vector<std::string>> sets = {
      {"$..c"},
      {"$..a", "$.x..b"},
      {"$[*].a[*]", "$..y"},
      {"$..*"},
      {"$..a.*", "$"},
      {"$.*.*", "$..b.c"},
      {"$[1].b", "$..a"},
      {"$..a", "$..b", "$..c", "$..x", "$..y"},  // more than replayed
  };
  for (const auto& rules : sets) {
    for (unsigned seed = 0; seed < 300; ++seed) {
      Walk w(rules);
      w.document(seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(tells_where_the_first_rules_wait) {
  // Date rules first, then null rules: in a map under a record
  // (`$[0].m`), no date rule can select a member, the null rule
  // `$..note` can.
  const std::vector<path::Query> rules = {
      tf::parse_rule_path("test", "$[*].when"),
      tf::parse_rule_path("test", "$[*].m.at"),
      tf::parse_rule_path("test", "$..note")};
  tf::PathTracker t(rules);
  const auto first = t.waiting_states(2);
  const auto all = t.waiting_states(3);
  BOOST_TEST(t.reaches_below(first));  // the root
  t.on_open(true);
  t.on_value_begin();
  BOOST_TEST(t.reaches_below(first));  // a record
  t.on_open(false);
  t.on_key("m");
  t.on_value_begin();
  BOOST_TEST(t.reaches_below(first));  // $[0].m: `at` may come
  t.on_open(false);
  t.on_key("other");
  t.on_value_begin();
  BOOST_TEST(!t.reaches_below(first));  // $[0].m.other
  BOOST_TEST(t.reaches_below(all));
  t.on_value_end();
  t.on_close();
  t.on_key("x");
  t.on_value_begin();
  BOOST_TEST(!t.reaches_below(first));  // $[0].x
  BOOST_TEST(t.reaches_below(all));
  BOOST_TEST(!t.reaches_below(t.waiting_states(0)));
  t.on_value_end();
  t.on_key("when");
  t.on_value_begin();
  // Selected, and nothing below it: the accepting state waits for none.
  BOOST_TEST(t.selected() == 0);
  BOOST_TEST(!t.reaches_below(t.waiting_states(1)));
}

BOOST_AUTO_TEST_CASE(counted_elements_keep_their_places) {
  // Elements counted instead of entered: the ones after them, and the ones
  // entered later, are where they are.
  const std::vector<std::vector<std::string>> sets = {
      {"$[*].a"},
      {"$[*].x.a", "$..y"},
      {"$[*].*"},
      {"$.x[*].y", "$[*][*].a"},
  };
  for (const auto& rules : sets) {
    for (unsigned seed = 0; seed < 400; ++seed) {
      Walk w(rules, true);
      w.document(seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(many_rules_packed_into_words) {
  // The states of all rules in a few words: rules that fill a word and
  // go on in the next, a long rule that moves to a word of its own, and
  // more words than replayed (matched only). The first rule that selects
  // wins across words, from any rule on.
  const std::vector<std::vector<std::string>> sets = {
      after_unused(14, {"$[*].a", "$..c", "$[*].*"}),
      after_unused(30, {"$..a", "$.x..b", "$[1].b", "$..*"}),
      {"$..a", "$.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b",
       "$.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a",
       "$[*].x", "$..y[*]"},
      after_unused(130, {"$[*].a", "$..c", "$..x[0]", "$.*.*"}),
      after_unused(130, {"$[*].a", "$..y"}),
      // Slices of every element, as rules made of a schema hold.
      {"$[0:].a", "$..b[0:]", "$.x[0:][0:]"},
      after_unused(20, {"$[0:]..*", "$..a[0:]", "$[0:]"}),
  };
  for (const auto& rules : sets) {
    for (unsigned seed = 0; seed < 200; ++seed) {
      Walk w(rules);
      w.document(seed);
      Walk counting(rules, true);
      counting.document(seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(replays_up_to_its_words) {
  // Two bits a rule of one segment: 128 rules in four words replay, and
  // one more does not.
  const auto tracker = [](std::size_t n) {
    std::vector<jbx::path::Query> q;
    for (std::size_t i = 0; i < n; ++i) {
      q.push_back(tf::parse_rule_path("test", "$.n" + std::to_string(i)));
    }
    return tf::PathTracker(q);
  };
  BOOST_TEST(tracker(128).replayable());
  BOOST_TEST(!tracker(129).replayable());
  BOOST_TEST(tracker(0).replayable());
}

BOOST_AUTO_TEST_SUITE_END()
