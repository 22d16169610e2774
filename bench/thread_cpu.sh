#!/usr/bin/env bash
# CPU seconds per thread of a command (sampled from /proc every 0.1 s; each thread's
# last sample is kept, also for threads that ended before the command), by thread name.
# In urlkey's pipeline every thread reads and keys whole batches; the main
# thread `urlkey` also writes (or counts) every batch in order, which is its serial part,
# and the helpers `urlkey-work-N` only read and key. So on an idle machine with 2 cores
#   wall(2 threads) >= max(main's serial part, all CPU / 2)   (whatever the load is now)
# and the bound printed is (all CPU) / max(all CPU / 2, ...): main's CPU is shown, but part
# of it is keying that a helper could have done. (`urlkey-read` is a thread of builds
# before commit `797850c`, kept so that older binaries can be measured.)
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
    name=$(tr ' ' '_' < "$t/comm" 2>/dev/null) || continue
    # after the ")" that ends the name: $1 is field 3 (state), so utime (14) and
    # stime (15) are $12 and $13
    s=$(sed 's/^.*) //' "$t/stat" 2>/dev/null) || continue
    set -- $s
    snap="$snap ${t##*/}:$name:$(( ${12} + ${13} ))"
  done
  [ -n "$snap" ] && last="$last $snap"
  sleep 0.1
done
wait "$pid"
# Each thread's last (largest) sample, in order of thread id.
echo "$last" | tr ' ' '\n' | grep -v '^$' | sort -t: -k1,1n -k3,3n | awk -F: '{ v[$1] = $0 } END { for (k in v) print v[k] }' |
  sort -t: -k1,1n | awk -F: -v pid="$pid" -v tick="$tick" '
  { secs = $3 / tick; all += secs
    if ($1 == pid) { main = secs; role = "main (serial)" }
    else if ($2 == "urlkey-read") { reader += secs; role = "reader (serial)" }
    else { par += secs; role = "parallel" }
    printf "  thread %-8s %-16s %6.2f s CPU  %s\n", $1, $2, secs, role }
  END {
    half = all / 2; b = main; if (reader > b) b = reader; if (half > b) b = half
    printf "main %.2f s, reader %.2f s, parallel stage %.2f s, all %.2f s CPU; ", main, reader, par, all
    printf "bound for 2 cores: wall >= %.2f s, speedup over the same CPU on one core <= %.2fx\n", b, all / b }'
