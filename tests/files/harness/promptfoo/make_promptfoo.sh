#!/usr/bin/env bash
# Run promptfoo offline and write its results beside this script:
#   results.json         promptfooconfig.yaml: two providers, five tests, several assertion kinds
#   results-repeat.json  promptfooconfig-repeat.yaml with --repeat 2: two prompts, var expansion
#   results-missing-results.json  results.json without its "results" key (error tests)
# Needs `npm install promptfoo@0.121.20` in /work/staging/harness (0.121.x is the last
# line that runs on Node 20; 0.122 and later need Node >= 22.22).
set -euo pipefail
cd "$(dirname "$0")"
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1 \
  PROMPTFOO_DISABLE_REMOTE_GENERATION=1 PROMPTFOO_SELF_HOSTED=1 \
  PROMPTFOO_CONFIG_DIR="$PWD/.promptfoo"   # its sqlite store and cache, not ~/.promptfoo
export PATH="$PWD/../../node_modules/.bin:$PATH"
# promptfoo exits 100 when an assertion fails: that is a finished eval here.
promptfoo eval -c promptfooconfig.yaml -o results.json --no-cache --no-progress-bar --no-table || [ $? -eq 100 ]
promptfoo eval -c promptfooconfig-repeat.yaml -o results-repeat.json --repeat 2 --no-cache --no-progress-bar --no-table \
  || [ $? -eq 100 ]
node -e '
const fs = require("fs");
const doc = JSON.parse(fs.readFileSync("results.json", "utf8"));
delete doc.results;
fs.writeFileSync("results-missing-results.json", JSON.stringify(doc, null, 2));'
rm -rf .promptfoo
