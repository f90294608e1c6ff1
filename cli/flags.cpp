// The flag and subcommand tables. Keep each section in the order its flags
// should appear in help and man pages. Summaries are one line of at most 60
// characters; details are roff-free prose (the man generator escapes).
#include "cli/flags.h"

#include "cli/commands.h"

namespace jbx::cli {

namespace {

using sv = std::string_view;

constexpr sv kColorChoices[] = {"auto", "always", "never"};
constexpr sv kErrorFormats[] = {"text", "json"};
constexpr sv kDecimalsChoices[] = {"double", "exact"};
constexpr sv kLossyChoices[] = {"error", "string", "nearest"};
constexpr sv kBytesChoices[] = {"base64", "base64url", "hex", "array"};
constexpr sv kNanChoices[] = {"error", "null", "string"};
constexpr sv kTypeNameChoices[] = {"keep", "drop"};
constexpr sv kKeysChoices[] = {"text", "error"};

constexpr FlagSpec kFlags[] = {
    // ---- input -------------------------------------------------------------
    {"from",
     'f',
     "FORMAT",
     "input",
     "Read inputs as FORMAT",
     "Read every input as FORMAT instead of sniffing it from content and "
     "extension.",
     {},
     Completion::format,
     kAllCmds},
    {"lines",
     'l',
     "",
     "input",
     "JSON Lines in and out",
     "Treat input as JSON Lines (one document per line) and write one compact "
     "document per line. On by default for files ending in .jsonl or "
     ".ndjson.",
     {},
     Completion::none,
     kAllCmds},
    {"max-depth",
     0,
     "N",
     "input",
     "Maximum nesting depth (default 1024)",
     "Containers nested deeper than N are an error, never a crash.",
     {},
     Completion::none,
     kAllCmds},

    // ---- output ------------------------------------------------------------
    {"indent",
     0,
     "N",
     "output",
     "Indent by N spaces (default 2)",
     "Pretty-print with N spaces per level; 0 puts each document on one line "
     "with spaces after separators removed.",
     {},
     Completion::none,
     kOutputCmds},
    {"tab",
     0,
     "",
     "output",
     "Indent with tabs",
     "Pretty-print with one tab per level.",
     {},
     Completion::none,
     kOutputCmds},
    {"compact",
     'c',
     "",
     "output",
     "Compact output, no whitespace",
     "Write each document on one line without any whitespace.",
     {},
     Completion::none,
     kOutputCmds},
    {"sort-keys",
     'S',
     "",
     "output",
     "Sort object keys",
     "Write object members sorted by key (byte order of their UTF-8), "
     "recursively.",
     {},
     Completion::none,
     kOutputCmds},
    {"ascii",
     'a',
     "",
     "output",
     "Escape non-ASCII characters",
     "Write every non-ASCII character as \\uXXXX, characters outside the "
     "Basic Multilingual Plane as a surrogate pair.",
     {},
     Completion::none,
     kOutputCmds},
    {"color", 0, "WHEN", "output", "Colour output: auto, always, never",
     "Colour JSON output. auto (the default) colours when standard output is "
     "a terminal and NO_COLOR is not set.",
     kColorChoices, Completion::choice, kOutputCmds | kValidate},
    {"output",
     'o',
     "FILE",
     "output",
     "Write to FILE (atomically)",
     "Write to FILE instead of standard output. The file is replaced "
     "atomically: jbx writes a temporary file beside it and renames it, so on "
     "any error FILE is left untouched.",
     {},
     Completion::file,
     kOutputCmds},
    {"in-place",
     'i',
     "",
     "output",
     "Rewrite each input file in place",
     "Replace each input file with its output, atomically and keeping the "
     "file's mode. Any number of files may be given.",
     {},
     Completion::none,
     kFmt | kConvert},

    // ---- conversion ---------------------------------------------------------
    {"to",
     't',
     "FORMAT",
     "conversion",
     "Write FORMAT",
     "Output format. Defaults to the output file's extension, else json.",
     {},
     Completion::format,
     kConvert | kQuery},
    {"decimals", 0, "MODE", "conversion", "Decimals to binary: double, exact",
     "How JSON decimals are written to binary formats: as doubles (the "
     "default), or exact as JSONB BigDecimal and CBOR tag 4.",
     kDecimalsChoices, Completion::choice, kConvert | kQuery},
    {"lossy", 0, "POLICY", "conversion",
     "Inexact numbers: error, string, nearest",
     "When the target has no exact type for a number (MessagePack decimals "
     "and big integers): error (the default) names the value's path and "
     "offset; string writes its spelling as a string; nearest writes the "
     "nearest double.",
     kLossyChoices, Completion::choice, kConvert | kQuery},
    {"bytes", 0, "ENC", "conversion",
     "Byte strings in JSON: base64, base64url, hex, array",
     "How binary byte strings are written to JSON.", kBytesChoices,
     Completion::choice, kOutputCmds},
    {"nan", 0, "POLICY", "conversion", "NaN and infinity in JSON",
     "Non-finite doubles written to JSON: error (the default), null, or a "
     "string such as \"NaN\".",
     kNanChoices, Completion::choice, kOutputCmds},
    {"type-names", 0, "MODE", "conversion", "Type names in JSON: keep, drop",
     "JSONB type names and CBOR tags without JSON meaning are written as an "
     "\"@type\" member (keep, the default) or dropped.",
     kTypeNameChoices, Completion::choice, kOutputCmds},
    {"keys", 0, "MODE", "conversion", "Non-string map keys: text, error",
     "Non-string map keys (CBOR, MessagePack) become their JSON text (text, "
     "the default) or are refused (error).",
     kKeysChoices, Completion::choice, kOutputCmds},
    {"canonical",
     0,
     "",
     "conversion",
     "Deterministic CBOR (RFC 8949 4.2)",
     "Write CBOR in its deterministic form: shortest encodings and map keys "
     "sorted by their encoded bytes.",
     {},
     Completion::none,
     kConvert | kQuery},

    // ---- query --------------------------------------------------------------
    {"wrap",
     0,
     "",
     "query",
     "Write all results as one JSON array",
     "Collect the selected values of all inputs into one array, written "
     "pretty unless -c or --indent 0 say otherwise. Without it, each result "
     "is a document of its own, compact on one line unless --indent or --tab "
     "ask for pretty output.",
     {},
     Completion::none,
     kQuery},
    {"raw",
     'r',
     "",
     "query",
     "Write strings without quotes",
     "Write selected strings as their raw text without quotes or escapes, one "
     "per line, for use in shell scripts; other values are written as JSON.",
     {},
     Completion::none,
     kQuery},
    {"raw0",
     0,
     "",
     "query",
     "Like --raw, but end each result with a NUL byte",
     "Like \\flag{raw}, but each result (value or path) ends with a NUL byte "
     "instead of a newline, for xargs -0.",
     {},
     Completion::none,
     kQuery},
    {"paths",
     0,
     "",
     "query",
     "Print normalized paths instead of values",
     "Print the RFC 9535 normalized path of each selected node, such as "
     "$['store']['book'][0], one per line. The values are not decoded.",
     {},
     Completion::none,
     kQuery},
    {"pointers",
     0,
     "",
     "query",
     "Print JSON Pointers instead of values",
     "Print the RFC 6901 JSON Pointer of each selected node, such as "
     "/store/book/0, one per line. With \\flag{with-path}, the pointer "
     "replaces the normalized path.",
     {},
     Completion::none,
     kQuery},
    {"with-path",
     0,
     "",
     "query",
     "Print {\"path\": ..., \"value\": ...} per result",
     "Write each result as an object holding its normalized path (or JSON "
     "Pointer with \\flag{pointers}) and its value: "
     "{\"path\":\"$['a'][0]\",\"value\":1}.",
     {},
     Completion::none,
     kQuery},
    {"exit-status",
     'e',
     "",
     "query",
     "Exit 1 when nothing matched",
     "Exit with status 1 when the query selected nothing in any input (0 "
     "when something matched, 2 on errors).",
     {},
     Completion::none,
     kQuery},
    {"first",
     0,
     "",
     "query",
     "Stop after the first result",
     "Write only the first selected node and stop reading: the rest of the "
     "input and further files are not read.",
     {},
     Completion::none,
     kQuery},
    {"pointer",
     0,
     "PTR",
     "query",
     "Select by RFC 6901 JSON Pointer instead of EXPR",
     "Select the value at the JSON Pointer PTR (such as /a/b/0, with ~0 for "
     "'~' and ~1 for '/'); every positional argument is then a file.",
     {},
     Completion::none,
     kQuery},

    // ---- validate -----------------------------------------------------------
    {"quiet",
     'q',
     "",
     "validate",
     "Print nothing; only the exit status",
     "Print no diagnostics; the exit status alone tells the result.",
     {},
     Completion::none,
     kValidate},
    {"error-format", 0, "FORMAT", "validate", "Diagnostics as text or json",
     "text prints each error as FILE:LINE:COL with the source line and a "
     "caret; json prints one JSON object per error, one per line.",
     kErrorFormats, Completion::choice, kValidate},
};

constexpr Example kFmtExamples[] = {
    {"Pretty-print a document.", "jbx fmt", R"({"a":[1,2]})",
     "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n"},
    {"Compact, with sorted keys.", "jbx fmt -c -S", R"({"b":1,"a":2})",
     "{\"a\":2,\"b\":1}\n"},
};

constexpr Example kValidateExamples[] = {
    {"Check a document; the exit status says whether it is valid.",
     "jbx validate", R"({"a": 1})", ""},
};

constexpr Example kConvertExamples[] = {
    {"Convert JSON to CBOR and back.", "jbx convert -t cbor | jbx convert",
     R"({"a":1})", "{\n  \"a\": 1\n}\n"},
};

constexpr Example kQueryExamples[] = {
    {"Select every book title.", "jbx query '$.books[*].title'",
     R"({"books":[{"title":"A"},{"title":"B"}]})", "\"A\"\n\"B\"\n"},
};

constexpr CommandSpec kCommands[] = {
    {"fmt", kFmt, "Reformat JSON: pretty, compact, sorted, ASCII",
     "[OPTIONS] [FILE...]",
     "Reads each FILE (or standard input) and writes it back out, "
     "pretty-printed by default. Several files and concatenated documents are "
     "written one after another, like jq. Numbers keep their exact spelling "
     "and strings are written with canonical, minimal escaping.",
     "FILE", Completion::input, kFmtExamples, run_fmt},
    {"validate", kValidate, "Check syntax: strict RFC 8259 and UTF-8",
     "[OPTIONS] [FILE...]",
     "Checks that each FILE (or standard input) is well-formed: strict RFC "
     "8259 JSON with valid UTF-8, or well-formed binary input. Exits 0 when "
     "every input is valid, 1 when any is not.",
     "FILE", Completion::input, kValidateExamples, run_validate},
    {"convert", kConvert, "Convert between JSON and binary formats",
     "[OPTIONS] [FILE...] -t FORMAT",
     "Converts each FILE (or standard input) to FORMAT. The input format is "
     "sniffed from content, then from the extension; --from overrides.",
     "FILE", Completion::input, kConvertExamples, run_convert},
    {"query", kQuery, "Select values with RFC 9535 JSONPath",
     "[OPTIONS] EXPR [FILE...]",
     "Runs the JSONPath query EXPR on each FILE (or standard input) and "
     "writes every selected value, one per line.",
     "EXPR FILE", Completion::input, kQueryExamples, run_query},
};

}  // namespace

std::span<const FlagSpec> flag_table() { return kFlags; }
std::span<const CommandSpec> command_table() { return kCommands; }

const FlagSpec* find_flag(std::string_view long_name) {
  for (const FlagSpec& f : kFlags) {
    if (f.long_name == long_name) return &f;
  }
  return nullptr;
}

const CommandSpec* find_command(std::string_view name) {
  for (const CommandSpec& c : kCommands) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace jbx::cli
