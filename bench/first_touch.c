/* What memory costs the first time a process touches it (docs/benchmarks.md, the
 * record at `d003c5d`, "`map`: three cuts, one experiment dropped"): maps MB megabytes,
 * optionally asks for transparent huge pages, writes one byte a page, and prints
 * milliseconds per megabyte.
 *
 *   gcc -O2 bench/first_touch.c -o /tmp/first_touch
 *   /tmp/first_touch 512 1   # huge pages (madvise), as mimalloc asks for its arena
 *   /tmp/first_touch 512 0   # small pages
 *
 * Run it after a pause and again right after another process freed as much memory: on a
 * virtual machine that hands free memory back to its host, the two differ by up to 70x. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: first_touch MB HUGE(0|1)\n");
        return 2;
    }
    size_t mb = (size_t)atoi(argv[1]), n = mb << 20;
    char *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    if (atoi(argv[2])) {
        madvise(p, n, MADV_HUGEPAGE);
    }
    double t = now();
    for (size_t i = 0; i < n; i += 4096) {
        p[i] = 1;
    }
    double ms = (now() - t) * 1000;
    printf("%zu MB, %s pages: %.2f ms/MB\n", mb, atoi(argv[2]) ? "huge" : "small", ms / mb);
    return 0;
}
