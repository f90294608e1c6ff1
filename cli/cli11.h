// CLI11 for app.cpp, the one file that uses it, without <iostream>'s static
// initialiser. Not for anything that prints: jbx writes through stdio.
#pragma once

#include <istream>
#include <ostream>

// With libstdc++ before GCC 13, every file that includes <iostream> runs
// std::ios_base::Init before main: it builds the eight standard streams and
// the classic locale, about 108,000 instructions (the locale is most of it,
// and CLI11 builds it anyway once a flag is registered). CLI11 includes
// <iostream> only to name std::cout and std::cerr in App::exit's default
// arguments and in the deprecation warnings of deprecate_option and
// retire_option, none of which jbx calls. So the header is marked as read and
// those two streams are declared as <iostream> declares them; nothing here may
// write to them, since without an ios_base::Init somewhere in the program they
// are never constructed.
#if defined(__GLIBCXX__) && !defined(_GLIBCXX_IOSTREAM)
#define _GLIBCXX_IOSTREAM 1
namespace std {
extern ostream cout;
extern ostream cerr;
}  // namespace std
#endif

#include <CLI/CLI.hpp>
