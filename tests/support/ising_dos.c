/* Reads tests/data/ising2d_dos.txt and ising2d_dos_L32.txt ($CLMC_TEST_DATA, set by tests/meson.build). */
#include "ising_dos.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The block of L in the file `name` of the test data (0: none). */
static int read_block(const char *name, int L, int *energies, double *ln_g, int capacity)
{
    const char *dir = getenv("CLMC_TEST_DATA");
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
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

int ising2d_exact_dos(int L, int *energies, double *ln_g, int capacity)
{
    int n = read_block("ising2d_dos.txt", L, energies, ln_g, capacity);
    if (n == 0) { /* larger lattices have a file each (L = 32) */
        char name[64];
        snprintf(name, sizeof name, "ising2d_dos_L%d.txt", L);
        n = read_block(name, L, energies, ln_g, capacity);
    }
    return n;
}
