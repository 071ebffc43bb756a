/* Per-configuration totals for population annealing: the measurement
 * partials of one batch slot (cl/ising/ising.cl, ising_msc.cl:
 * partials[2 * ((slot * configs + config) * groups + g)], bond sum then
 * magnetisation) summed per configuration into H = -(bond sum) and M. */
__kernel void ising_member_totals(__global const int *partials, uint slot, uint configs, uint groups,
                                  __global int *energy, __global int *magnetisation)
{
    uint config = get_global_id(0);
    if (config >= configs) return;
    __global const int *p = partials + 2 * ((size_t)slot * configs + config) * groups;
    int bonds = 0, spins = 0;
    for (uint g = 0; g < groups; g++) {
        bonds += p[2 * g];
        spins += p[2 * g + 1];
    }
    energy[config] = -bonds;
    magnetisation[config] = spins;
}
