# Shared by the bench scripts (source it after setting `datasets`, the corpus folder): the
# corpus file and medians.

# corpus_file OUT [web]: SOURCE.md's corpus_all.txt (the four files in order, a newline
# added where a file lacks its last one), or with `web` only kasztp + userbait. kasztp's
# BOM is kept, as SOURCE.md's file has it; pass `nobom` as a third argument to drop it.
corpus_file() {
  local out="$1" set="${2:-all}" bom="${3:-bom}" f
  local files=(others/kasztp.txt others/userbait.txt)
  [ "$set" = web ] || files+=(files/node_files.txt files/isaacs_files.txt)
  for f in "${files[@]}"; do
    if [ "$bom" = nobom ]; then sed '1s/^\xEF\xBB\xBF//' "$datasets/$f"; else cat "$datasets/$f"; fi
    if [ -n "$(tail -c1 "$datasets/$f")" ]; then echo; fi
  done >"$out"
}

# median_seconds "T1 T2 ...": the median of times in microseconds, in seconds (6 decimals).
median_seconds() {
  echo "$1" | tr ' ' '\n' | grep -v '^$' | sort -n |
    awk '{a[NR]=$1} END {m=(NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); printf "%.6f", m/1e6}'
}
