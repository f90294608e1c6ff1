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

constexpr sv kNullsChoices[] = {"keep", "drop", "drop-all"};
constexpr sv kDateErrorsChoices[] = {"error", "keep"};
constexpr sv kEpochUnitChoices[] = {"ms", "s"};
constexpr sv kKeyCaseChoices[] = {"camel",  "snake",       "kebab",
                                  "pascal", "upper-snake", "lower"};
constexpr sv kDecimalStyleChoices[] = {"plain", "exponent"};

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
     "recursively. Each object not inside another is held until it ends, "
     "so a top-level array of records is sorted one record at a time.",
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
     "any error FILE is left untouched. Through a symbolic link the file it "
     "names is replaced; a device or FIFO (/dev/null, a named pipe) is "
     "written to, not replaced, and so is /dev/stdout (or /dev/fd/N), "
     "whatever file it has open.",
     {},
     Completion::file,
     kOutputCmds},
    {"in-place",
     'i',
     "",
     "output",
     "Rewrite each input file in place",
     "Replace each input file with its output, atomically and keeping the "
     "file's mode. Any number of files may be given; each must be a "
     "regular file (not a device or FIFO), as with sed -i.",
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
     "default), or exact as JSONB BigDecimal and CBOR tag 4. A decimal "
     "beyond the range of a double (1E400) stays exact in JSONB; CBOR "
     "refuses it unless exact, and MessagePack follows \\flag{lossy}. "
     "Exact has no negative zero: -0.0 is written as a double, keeping its "
     "sign.",
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

    // ---- transform (fastjson2 writer features)
    // -------------------------------
    {"nulls", 0, "MODE", "transform", "Null members: keep, drop, drop-all",
     "keep (the default) writes nulls; drop removes object members whose "
     "value is null, as fastjson2 does without WriteMapNullValue; drop-all "
     "also removes null array elements. A null document is still written. "
     "Example: jbx fmt -c --nulls=drop turns {\"a\":null,\"b\":[null]} into "
     "{\"b\":[null]}; --nulls=drop-all gives {\"b\":[]}.",
     kNullsChoices, Completion::choice, kOutputCmds},
    {"null-default",
     0,
     "PATH=JSON",
     "transform",
     "Write nulls at PATH as JSON (repeatable)",
     "Replace a null selected by the JSONPath PATH with the JSON value after "
     "the first '=' that follows the path. PATH may use names, wildcards, "
     "non-negative indices and '..'; the first matching rule wins, and rules "
     "apply before \\flag{nulls}. In jbx query, PATH is relative to each "
     "selected value. Example: jbx fmt -c --null-default "
     "'$..tags=[]' turns {\"tags\":null} into {\"tags\":[]}.",
     {},
     Completion::none,
     kOutputCmds,
     true},
    {"schema",
     0,
     "FILE",
     "transform",
     "Take null types from the JSON Schema FILE",
     "Read the JSON Schema FILE and replace a null whose location declares "
     "type array, string, number or integer, or boolean with [], \"\", 0 or "
     "false (fastjson2's WriteNullListAsEmpty, WriteNullStringAsEmpty, "
     "WriteNullNumberAsZero, WriteNullBooleanAsFalse); \\flag{null-as-empty} "
     "chooses which (all by default). Followed keywords: type, properties, "
     "additionalProperties, items, prefixItems, additionalItems, allOf, "
     "anyOf, oneOf and $ref within the file; a type list counts its first "
     "entry other than \"null\". \\flag{null-default} rules come first. "
     "Example: with {\"properties\":{\"n\":"
     "{\"type\":\"integer\"}}}, jbx fmt -c --schema s.json turns {\"n\":null} "
     "into {\"n\":0}.",
     {},
     Completion::file,
     kOutputCmds},
    {"null-as-empty",
     0,
     "KINDS",
     "transform",
     "With --schema: list,string,number,boolean",
     "A comma-separated list of the null kinds \\flag{schema} replaces: list "
     "([]), string (\"\"), number (0) and boolean (false). Example: "
     "--schema s.json --null-as-empty=list,string leaves numbers and "
     "booleans null.",
     {},
     Completion::none,
     kOutputCmds},
    {"empty-as-null",
     0,
     "",
     "transform",
     "Write empty strings and arrays as null",
     "The reverse of \\flag{null-as-empty}: every \"\" and [] becomes null "
     "(before \\flag{nulls}, so --empty-as-null --nulls=drop removes such "
     "members). Example: jbx fmt -c --empty-as-null turns {\"a\":\"\","
     "\"b\":[]} into {\"a\":null,\"b\":null}.",
     {},
     Completion::none,
     kOutputCmds},
    {"date-format",
     0,
     "FMT",
     "transform",
     "Dates as iso8601, millis, seconds or a pattern",
     "How dates are written to JSON: iso8601 (the default), millis or "
     "seconds since 1970 (fastjson2's \"millis\" and \"unixtime\"), or a "
     "pattern in java.time letters: yyyy (yy: two digits), MM (MMM Jan, MMMM "
     "January), dd, HH, hh (1-12) with a (AM/PM), mm, ss, SSS (fraction "
     "digits), E (Mon; EEEE Monday), z (zone abbreviation), Z (+0800), X "
     "(+08, XX +0800, XXX +08:00, Z for UTC), and text in single quotes; "
     "other letters are an error. Dates are native dates of binary inputs "
     "and the values at \\flag{date-fields}. With a binary output format, "
     "dates stay native unless FMT is given. Example: jbx convert "
     "--date-format 'yyyy-MM-dd HH:mm' --timezone Asia/Shanghai writes a "
     "CBOR date 2024-03-31T01:30:00Z as \"2024-03-31 09:30\".",
     {},
     Completion::none,
     kOutputCmds},
    {"timezone",
     0,
     "TZ",
     "transform",
     "Zone for dates: IANA name or offset (default UTC)",
     "The time zone dates are written in, and the zone of date texts read "
     "without an offset: an IANA name from the system tz database "
     "(Europe/Berlin; the TZDIR environment variable overrides "
     "/usr/share/zoneinfo), UTC, or an offset such as +08:00. The default "
     "is UTC. Daylight-saving time follows the database; a local time in a "
     "spring-forward gap moves forward, one in an autumn overlap takes the "
     "earlier offset, as java.time does. Example: --timezone "
     "America/New_York writes 2024-07-01T12:00:00Z as "
     "2024-07-01T08:00:00-04:00.",
     {},
     Completion::timezone,
     kOutputCmds},
    {"date-fields",
     0,
     "PATH",
     "transform",
     "JSON values at PATH are dates (repeatable)",
     "Treat the strings and numbers that the JSONPath PATH selects as dates: "
     "strings are read as ISO 8601 (2024-03-31, 2024-03-31T01:30:00.5+02:00) "
     "or with \\flag{date-input-format}, numbers as epoch counts in "
     "\\flag{epoch-unit}. Converting to JSONB, CBOR or MessagePack writes "
     "them as native dates; JSON output rewrites them with "
     "\\flag{date-format}. PATH may use names, wildcards, non-negative "
     "indices and '..'; in jbx query it is relative to each selected value. "
     "Example: jbx fmt -c --date-fields '$.t' "
     "--date-format millis turns {\"t\":\"1969-12-31T23:59:59Z\"} into "
     "{\"t\":-1000}.",
     {},
     Completion::none,
     kOutputCmds,
     true},
    {"date-input-format",
     0,
     "PATTERN",
     "transform",
     "Read date strings with PATTERN, not ISO 8601",
     "Read the strings at \\flag{date-fields} with PATTERN, in the letters of "
     "\\flag{date-format}; fields the pattern lacks default to "
     "1970-01-01T00:00:00, and without an offset or zone in the text the "
     "zone is \\flag{timezone}. Example: --date-fields '$.d' "
     "--date-input-format dd/MM/yyyy reads \"31/03/2024\".",
     {},
     Completion::none,
     kOutputCmds},
    {"epoch-unit", 0, "UNIT", "transform",
     "Numbers at --date-fields: ms (default) or s",
     "The unit of numbers at \\flag{date-fields}: milliseconds (ms, the "
     "default, like fastjson2) or seconds (s); fractions are allowed down to "
     "nanoseconds. Example: --date-fields '$.t' --epoch-unit s reads "
     "{\"t\":86400} as 1970-01-02T00:00:00Z.",
     kEpochUnitChoices, Completion::choice, kOutputCmds},
    {"date-errors", 0, "MODE", "transform",
     "Unreadable dates: error (default) or keep",
     "What to do with a value at \\flag{date-fields} that is not a date: "
     "error (the default) names its path and the character where reading "
     "failed; keep passes it on unchanged. Example: --date-fields '$.d' "
     "--date-errors keep leaves {\"d\":\"soon\"} as it is.",
     kDateErrorsChoices, Completion::choice, kOutputCmds},
    {"key-case", 0, "CASE", "transform",
     "Rename keys: camel, snake, kebab, pascal, ...",
     "Rename every object key, recursively, as fastjson2's naming "
     "strategies do: camel (userId), snake (user_id), kebab (user-id), "
     "pascal (UserId), upper-snake (USER_ID) or lower (the key lowercased). "
     "Words split at _, - and spaces and at case changes (HTTPServer is "
     "HTTP Server). Two keys of one object that get the same name are an "
     "error naming both. Example: jbx fmt -c --key-case snake turns "
     "{\"userId\":1} into {\"user_id\":1}.",
     kKeyCaseChoices, Completion::choice, kOutputCmds},
    {"bigint-as-string",
     0,
     "",
     "transform",
     "Write integers beyond +-(2^53-1) as strings",
     "Write integers that JavaScript cannot hold exactly (beyond "
     "+-9007199254740991) as strings, like fastjson2's WriteLongAsString "
     "and BrowserCompatible. Example: jbx fmt -c --bigint-as-string turns "
     "[9007199254740993,1] into [\"9007199254740993\",1].",
     {},
     Completion::none,
     kOutputCmds},
    {"decimal", 0, "STYLE", "transform",
     "Decimals as plain or exponent notation",
     "Rewrite numbers with a fraction or an exponent, digit for digit: plain "
     "never uses an exponent (fastjson2's WriteBigDecimalAsPlain), exponent "
     "writes one digit before the point and an exponent. Integers are left "
     "alone. Example: jbx fmt -c --decimal plain turns [1.5e3,1E-7] into "
     "[1500,0.0000001]; --decimal exponent turns [1500.0] into "
     "[1.5000e3].",
     kDecimalStyleChoices, Completion::choice, kOutputCmds},

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

    {"ignore-case",
     0,
     "",
     "query",
     "Match member names case-insensitively",
     "Name selectors match member names regardless of ASCII case: $.userid "
     "selects \"userId\" and \"USERID\", but not \"user_id\" (see "
     "--smart-match). Example: jbx query --ignore-case '$.userid' turns "
     "{\"userId\":1} into 1.",
     {},
     Completion::none,
     kQuery},

    {"smart-match",
     0,
     "",
     "query",
     "Match member names as fastjson2's smart match does",
     "Name selectors match member names as fastjson2's SupportSmartMatch "
     "does: regardless of ASCII case, and with '-', '_' and ' ' left out, "
     "so one name finds camelCase, PascalCase, snake_case, kebab-case and "
     "UPPER_SNAKE spellings. Implies --ignore-case. Example: jbx query "
     "--smart-match '$.userId' turns {\"user_id\":1} into 1.",
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
    {"Numbers keep their spelling, however long.", "jbx fmt -c",
     R"({"id":-8651648355575108941,"price":1.10})",
     "{\"id\":-8651648355575108941,\"price\":1.10}\n"},
};

constexpr Example kValidateExamples[] = {
    {"Check a document; the exit status says whether it is valid.",
     "jbx validate", R"({"a": 1})", ""},
    {"In a script: -q prints nothing, the exit status tells.",
     "jbx validate -q || echo \"invalid: $?\"", R"({"a": 1,})", "invalid: 1\n"},
};

constexpr Example kConvertExamples[] = {
    {"Convert JSON to CBOR and back.", "jbx convert -t cbor | jbx convert",
     R"({"a":1})", "{\n  \"a\": 1\n}\n"},
    {"Big integers and decimals survive the round trip.",
     "jbx convert -t cbor --decimals exact | jbx convert -c",
     R"({"n":18446744073709551616,"d":1.10})",
     "{\"n\":18446744073709551616,\"d\":1.10}\n"},
};

constexpr Example kQueryExamples[] = {
    {"Select every book title.", "jbx query '$.books[*].title'",
     R"({"books":[{"title":"A"},{"title":"B"}]})", "\"A\"\n\"B\"\n"},
    {"Filter, and write strings without quotes.",
     "jbx query -r '$[?@.price < 10].title'",
     R"([{"title":"A","price":8},{"title":"B","price":12}])", "A\n"},
    {"Where the matches are: normalized paths, or JSON Pointers.",
     "jbx query --paths '$..id'", R"({"id":1,"items":[{"id":2}]})",
     "$['id']\n$['items'][0]['id']\n"},
    {"Select by JSON Pointer; exit 1 when nothing is there.",
     "jbx query -e --pointer /a~1b/0", R"({"a/b":[12345678901234567890]})",
     "12345678901234567890\n"},
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
     "Runs the RFC 9535 JSONPath query EXPR (or, with --pointer, an RFC 6901 "
     "JSON Pointer) on each document of each FILE (or standard input), in "
     "any input format; JSON Lines run the query per line. Every selected "
     "value is written as a document of its own, compact on one line unless "
     "--indent or --tab ask for pretty output, in the order RFC 9535 "
     "defines; numbers and strings come out exactly as they went in. --wrap "
     "collects them into one array, --paths and --pointers print locations, "
     "--with-path prints {\"path\": ..., \"value\": ...} objects, -t "
     "writes any output format. A query that does not parse is reported "
     "with a caret under the offending character before any input is read. "
     "Queries stream: what cannot match is skipped without being decoded, "
     "and only the candidates of a filter are built in memory, holding just "
     "the members the query reads; a query that starts with '..' or uses "
     "'$' inside a filter builds the (pruned) whole document.",
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
