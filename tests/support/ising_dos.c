/* Reads tests/data/ising2d_dos.txt ($CLMC_TEST_DATA, set by tests/meson.build). */
#include "ising_dos.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ising2d_exact_dos(int L, int *energies, double *ln_g, int capacity)
{
    const char *dir = getenv("CLMC_TEST_DATA");
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/ising2d_dos.txt", dir ? dir : "tests/data");
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int n = 0, in_block = 0;
    while (fgets(line, sizeof line, f)) {
        int edge;
        if (line[0] == '#') {
            if (in_block) break;
            in_block = sscanf(line, "# L %d", &edge) == 1 && edge == L;
            continue;
        }
        if (!in_block || n >= capacity) continue;
        char *end;
        long e = strtol(line, &end, 10);
        /* Counts up to 2^(L^2) are exact integers in the file; a long double
         * keeps 64 bits of each, far more than the tests compare. */
        long double g = strtold(end, NULL);
        energies[n] = (int)e;
        ln_g[n] = (double)logl(g);
        n++;
    }
    fclose(f);
    return n;
}
