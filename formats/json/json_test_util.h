// Test helper shared by the JSON reader's unit tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace jbx::testing {

/// A file of its own for `text`, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int n = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("jbx-test-" + std::to_string(getpid()) + "-" +
             std::to_string(n++) + ".json");
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace jbx::testing
