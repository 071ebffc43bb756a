/* Resource limits checked before allocating: device memory for a preset. */
#ifndef CLMC_LIMITS_H
#define CLMC_LIMITS_H

#include "clmc/preset.h"
#include "clmc/runtime.h"
#include "models/model.h"

/* CLMC_ERR_INPUT with both numbers when the model's estimate (model.h
 * device_bytes) exceeds the device's global memory or its largest
 * allocation; CLMC_OK for models without an estimate. */
clmc_status clmc_check_device_memory(const clmc_model_ops *ops, const clmc_preset *preset,
                                     const clmc_device_info *device);

#endif
