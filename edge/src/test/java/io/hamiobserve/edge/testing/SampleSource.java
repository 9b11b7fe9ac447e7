package io.hamiobserve.edge.testing;

import io.hamiobserve.exposition.Exposition;
import io.hamiobserve.exposition.Families;
import io.hamiobserve.exposition.MetricFamily;
import io.hamiobserve.edge.http.MetricsSource;

import java.util.Optional;

/**
 * A ready source for tests of the HTTP edge: a few HAMi-named series written by the exposition
 * engine, the same at every scrape (so an unchanged state is served from the last rendering).
 */
public final class SampleSource implements MetricsSource {
    private static final MetricFamily ALLOCATED = MetricFamily.hamiGauge("hami_gpu_memory_allocated_bytes",
            "Device memory allocated for a certain GPU", "node", "device_uuid", "device_index", "device_cores",
            "device_type");
    private static final MetricFamily SHARED = MetricFamily.hamiGauge("hami_gpu_shared_count",
            "Number of containers sharing this GPU", "node", "device_uuid", "device_index", "device_type");

    @Override
    public Optional<Object> stateStamp() {
        return Optional.of("sample");
    }

    @Override
    public Exposition collect() {
        Families families = new Families();
        MetricFamily.Points allocated = families.of(ALLOCATED);
        MetricFamily.Points shared = families.of(SHARED);
        for (int card = 0; card < 4; card++) {
            String uuid = "GPU-sample-" + card;
            allocated.add((card + 1) * 1024.0 * 1024 * 1024, "gpu-node-a", uuid, Integer.toString(card), "100",
                    "NVIDIA A100-SXM4-40GB");
            shared.add(card, "gpu-node-a", uuid, Integer.toString(card), "NVIDIA A100-SXM4-40GB");
        }
        return Exposition.of(families.snapshots());
    }

    @Override
    public boolean ready() {
        return true;
    }

    @Override
    public String notReadyReason() {
        return "";
    }
}
