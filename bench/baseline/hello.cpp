// The start-up reference of bench/run: the smallest C++ program that prints,
// linked like jbx against the C++ runtime. Not part of jbx.
#include <iostream>

int main() {
  std::cout << "Hello, world!\n";
  return 0;
}
