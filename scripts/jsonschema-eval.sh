#!/usr/bin/env bash
# The `jsonschema` crate against Ajv's verdicts and our validator (docs/design.md, "The
# `jsonschema` crate"). Needs the installed node_modules (Ajv, ajv-formats) and cargo; builds
# tools/jsonschema-eval, its own workspace, which the package's builds and CI never build.
#
#   scripts/jsonschema-eval.sh            verdicts, then speed
#   scripts/jsonschema-eval.sh verdicts   the corpora with Ajv's verdicts, compared
#   scripts/jsonschema-eval.sh speed      validate and compile time against ours
set -euo pipefail
cd "$(dirname "$0")/.."

what="${1:-all}"
eval_dir=tools/jsonschema-eval
cargo build --release --manifest-path "$eval_dir/Cargo.toml"
bin="$eval_dir/target/release/jsonschema-eval"
if [ "$what" != speed ]; then
  node "$eval_dir/dump.mjs" "$eval_dir/cases.json"
  "$bin" verdicts "$eval_dir/cases.json"
fi
if [ "$what" != verdicts ]; then
  "$bin" speed
fi
