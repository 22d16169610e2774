#!/usr/bin/env bash
# CPU seconds per thread of a command (sampled from /proc every 0.1 s; the last sample
# before exit is kept). For an order-keeping pipeline, the main thread's CPU time is the
# serial part and the workers' the parallel part, so on an idle machine
#   wall(2 threads) >= main + workers / 2      (Amdahl, whatever the load is now).
# usage: bench/thread_cpu.sh CMD ARGS... (stdout of CMD goes to /dev/null)
set -u
"$@" >/dev/null 2>&1 &
pid=$!
tick=$(getconf CLK_TCK)
last=""
while kill -0 "$pid" 2>/dev/null; do
  snap=""
  for t in /proc/"$pid"/task/*; do
    [ -r "$t/stat" ] || continue
    # after the ")" that ends the name: $1 is field 3 (state), so utime (14) and
    # stime (15) are $12 and $13
    s=$(sed 's/^.*) //' "$t/stat" 2>/dev/null) || continue
    set -- $s
    snap="$snap ${t##*/}:$(( ${12} + ${13} ))"
  done
  [ -n "$snap" ] && last="$snap"
  sleep 0.1
done
wait "$pid"
main=0 workers=0
for e in $last; do
  tid=${e%%:*} ticks=${e##*:}
  if [ "$tid" = "$pid" ]; then main=$ticks; else workers=$((workers + ticks)); fi
done
awk -v m="$main" -v w="$workers" -v t="$tick" 'BEGIN {
  m/=t; w/=t;
  printf "main thread %.2f s CPU, worker threads %.2f s CPU; serial share %.0f%%; ", m, w, 100*m/(m+w);
  if (w > 0) printf "Amdahl bound for 2 threads (main + workers/2 vs main + workers): %.2fx\n", (m+w)/(m+w/2);
  else printf "single thread\n" }'
