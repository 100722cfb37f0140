#!/bin/sh
# Seeds both targets' corpora from the example files and the code blocks
# of the language reference. Run from fuzz/: ./seed.sh
set -e
cd "$(dirname "$0")"
for target in parse pipeline; do
    mkdir -p "corpus/$target"
    find ../examples -name '*.game' -exec cp {} "corpus/$target/" \;
    awk -v dir="corpus/$target" '
        /^```/ { if (inblock) { close(file); inblock = 0 } else { n++; file = dir "/doc" n ".game"; inblock = 1 } next }
        inblock { print > file }
    ' ../docs/language.md
done
echo "seeded: $(ls corpus/parse | wc -l) files per target"
