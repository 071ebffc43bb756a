/* Halo exchange of a slab over two command queues (ising_halo.h).  On one
 * in-order queue the read-back and the halo writes sat between the kernels
 * and the host waited on them with the interior queued behind: 4 H200,
 * 2026-11-26, 78-88 % efficiency where the device time scaled.  Here the copy
 * queue moves the layers while the interior runs. */
#include "models/ising/ising_halo.h"

#include "runtime/ranks.h"

clmc_status ising_halo_create(clmc_runtime *rt, size_t layer_bytes, int below, int above, ising_halo *h)
{
    *h = (ising_halo){.compute = clmc_runtime_queue(rt), .layer_bytes = layer_bytes, .below = below, .above = above};
    cl_device_id device;
    CLMC_CL_TRY(clGetCommandQueueInfo(h->compute, CL_QUEUE_DEVICE, sizeof device, &device, NULL));
    cl_int err;
    h->copy = clCreateCommandQueue(clmc_runtime_context(rt), device, 0, &err);
    CLMC_CL_CHECK(err, "clCreateCommandQueue(halo copies)");
    /* Host-allocated device memory is the portable route to pinned pages. */
    h->pinned = clCreateBuffer(clmc_runtime_context(rt), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, 4 * layer_bytes,
                               NULL, &err);
    CLMC_CL_CHECK(err, "clCreateBuffer(halo layers)");
    h->host = clEnqueueMapBuffer(h->copy, h->pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 4 * layer_bytes, 0,
                                 NULL, NULL, &err);
    CLMC_CL_CHECK(err, "clEnqueueMapBuffer(halo layers)");
    return CLMC_OK;
}

void ising_halo_release(ising_halo *h)
{
    if (h->read) CLMC_CL_WARN(clReleaseEvent(h->read));
    if (h->host) CLMC_CL_WARN(clEnqueueUnmapMemObject(h->copy, h->pinned, h->host, 0, NULL, NULL));
    if (h->copy) CLMC_CL_WARN(clFinish(h->copy));
    if (h->pinned) CLMC_CL_WARN(clReleaseMemObject(h->pinned));
    if (h->copy) CLMC_CL_WARN(clReleaseCommandQueue(h->copy));
    *h = (ising_halo){0};
}

clmc_status ising_halo_read(ising_halo *h, cl_mem buffer, size_t low, size_t high)
{
    cl_event updated;
    CLMC_CL_TRY(clEnqueueMarkerWithWaitList(h->compute, 0, NULL, &updated));
    cl_int err = clEnqueueReadBuffer(h->copy, buffer, CL_FALSE, low, h->layer_bytes, h->host, 1, &updated, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(h->copy, buffer, CL_FALSE, high, h->layer_bytes, h->host + h->layer_bytes, 1,
                                  &updated, &h->read);
    CLMC_CL_WARN(clReleaseEvent(updated));
    CLMC_CL_CHECK(err, "clEnqueueReadBuffer(boundary layers)");
    CLMC_CL_TRY(clFlush(h->copy));
    return CLMC_OK;
}

clmc_status ising_halo_swap(ising_halo *h, cl_mem buffer, size_t halo_low, size_t halo_high, int tag)
{
    size_t n = h->layer_bytes;
    unsigned char *sent_low = h->host, *sent_high = h->host + n, *got_low = h->host + 2 * n, *got_high = h->host + 3 * n;
    CLMC_CL_TRY(clFlush(h->compute));
    cl_int waited = clWaitForEvents(1, &h->read);
    CLMC_CL_WARN(clReleaseEvent(h->read));
    h->read = NULL;
    CLMC_CL_CHECK(waited, "clWaitForEvents(boundary layers)");
    /* The in-order copy queue: the reads into got_* below follow every
     * earlier write from them, which the read just waited for preceded. */
    CLMC_TRY(clmc_ranks_exchange(sent_low, h->below, got_high, h->above, n, tag));
    CLMC_TRY(clmc_ranks_exchange(sent_high, h->above, got_low, h->below, n, tag + 1));
    cl_event written;
    CLMC_CL_TRY(clEnqueueWriteBuffer(h->copy, buffer, CL_FALSE, halo_low, n, got_low, 0, NULL, NULL));
    CLMC_CL_TRY(clEnqueueWriteBuffer(h->copy, buffer, CL_FALSE, halo_high, n, got_high, 0, NULL, &written));
    cl_int err = clFlush(h->copy);
    if (err == CL_SUCCESS) err = clEnqueueBarrierWithWaitList(h->compute, 1, &written, NULL);
    CLMC_CL_WARN(clReleaseEvent(written));
    CLMC_CL_CHECK(err, "clEnqueueBarrierWithWaitList(halo layers)");
    return CLMC_OK;
}
