#!/usr/bin/env bash
# Write what `staffwork check` says about every order of the corpora, in JSON and with
# --explain, to one directory, so two builds of the reader can be compared byte for byte
# (issue 11: the speed work must not change a single result).
#
#   benches/reader_identical.sh BINARY OUTDIR
#   diff -r /tmp/speed5-before /tmp/speed5-after && echo identical
#
# Inputs: every tests/data/orders/*.txt file and every annotated corpus file
# (tests/data/orders/corpus/*.toml, its orders joined by blank lines), each read without a
# scenario and against every bundled scenario from both sides.
set -euo pipefail
bin=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/inputs"

for f in "$root"/tests/data/orders/*.txt; do
    cp "$f" "$out/inputs/$(basename "$f")"
done
python3 - "$root/tests/data/orders/corpus" "$out/inputs" <<'EOF'
import glob, os, sys, tomllib
src, dst = sys.argv[1], sys.argv[2]
for p in sorted(glob.glob(os.path.join(src, "*.toml"))):
    d = tomllib.load(open(p, "rb"))
    texts = [o["text"] for o in d.get("order", [])]
    with open(os.path.join(dst, os.path.basename(p)[:-5] + ".txt"), "w") as f:
        f.write("\n\n".join(texts) + "\n")
EOF

runs=(
    "none:"
    "tutorial-hall:imperial" "tutorial-hall:allied"
    "vimeiro-1808:french" "vimeiro-1808:british"
    "talavera-1809:french" "talavera-1809:allied"
    "talavera-1809-casa-de-salinas:french"
)
for input in "$out"/inputs/*.txt; do
    name=$(basename "$input" .txt)
    for r in "${runs[@]}"; do
        scen=${r%%:*}
        side=${r#*:}
        args=()
        if [ "$scen" != none ]; then args=(--scenario "$scen" --side "$side"); fi
        tag="$name.$scen${side:+.$side}"
        # check exits 1 when an order has an error; the output is what is compared.
        "$bin" check "${args[@]}" --format json "$input" >"$out/$tag.json" 2>&1 || true
        "$bin" check "${args[@]}" --explain "$input" >"$out/$tag.explain" 2>&1 || true
    done
done
echo "$(ls "$out" | wc -l) outputs in $out"
