// Test helper shared by the JSON reader's unit tests.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/source.h"
#include "core/test_pipe.h"

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

/// `text` as a reader gets it: from memory, or (from_file) from a file of
/// its own read front to back, as a huge one is, whose chunks the walk
/// reads through the file, not the mapping.
class TestInput {
 public:
  enum class From { memory, file, pipe };
  /// From a pipe: fed in writes of `piece` bytes.
  TestInput(const std::string& text, From from, std::size_t piece = 4099) {
    if (from == From::pipe) {
      pipe_ = std::make_unique<Pipe>(text, piece);
    } else if (from == From::file) {
      file_ = std::make_unique<TempFile>(text);
      source_ = Source::open(file_->path());
    } else {
      source_ = Source::from_memory("t", text);
    }
  }
  TestInput(const std::string& text, bool from_file)
      : TestInput(text, from_file ? From::file : From::memory) {
    if (from_file) source_->read_in_order();
  }
  Source& source() { return pipe_ != nullptr ? pipe_->source() : *source_; }

 private:
  std::unique_ptr<Pipe> pipe_;
  std::unique_ptr<TempFile> file_;  // (outlives the source)
  std::unique_ptr<Source> source_;
};

}  // namespace jbx::testing
