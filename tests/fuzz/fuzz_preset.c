/* libFuzzer target: any bytes as preset text, with and without an override;
 * parsing must return a status, never crash, leak or trip a sanitizer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "clmc/preset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    clmc_preset *preset = NULL;
    if (clmc_preset_parse((const char *)data, size, "<fuzz>", NULL, 0, &preset) == CLMC_OK) {
        char *text = clmc_preset_to_json(preset);
        free(text);
    }
    clmc_preset_free(preset);
    preset = NULL;
    const char *overrides[] = {"run.checkpoint_every=\"10m\"", "model.L=8"};
    clmc_preset_parse((const char *)data, size, "<fuzz>", overrides, 2, &preset);
    clmc_preset_free(preset);
    return 0;
}
