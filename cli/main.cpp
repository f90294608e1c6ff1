// jbx: convert, reformat, query and validate JSON and binary JSON.
#include "cli/app.h"

int main(int argc, char** argv) { return jbx::cli::main(argc, argv); }
