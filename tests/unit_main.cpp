// The one main() of the unit test binary; the suites live beside the code
// they test (core/*_test.cpp, formats/*/*_test.cpp, cli/*_test.cpp).
#define BOOST_TEST_MODULE jbx
#include <boost/test/unit_test.hpp>
