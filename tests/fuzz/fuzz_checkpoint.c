/* libFuzzer target: any bytes as a checkpoint file; decoding must refuse or
 * accept whole, and an accepted checkpoint's preset goes through the parser. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "engine/checkpoint.h"
#include "clmc/preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clmc_checkpoint checkpoint;
    if (clmc_checkpoint_decode(data, size, &checkpoint) != CLMC_OK) return 0;
    clmc_preset *preset = NULL;
    clmc_preset_parse(checkpoint.preset_json, strlen(checkpoint.preset_json), "<checkpoint>", NULL, 0, &preset);
    clmc_preset_free(preset);
    clmc_checkpoint_free(&checkpoint);
    return 0;
}
