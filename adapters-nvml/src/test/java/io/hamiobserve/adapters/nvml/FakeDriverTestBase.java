package io.hamiobserve.adapters.nvml;

import io.hamiobserve.ports.HostCardSource;
import io.hamiobserve.ports.SkipReporter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What every test through the fake {@code libnvidia-ml.so} shares: the library compiled afresh per
 * test (its script is its state), two cards with figures of their own, the skips the source reports
 * as {@code source/kind/reason/item}, and sources closed after the test so the fake's init and
 * shutdown counts stay balanced.
 */
abstract class FakeDriverTestBase {
    static final long GIB = 1L << 30;
    static final String A100 = FakeNvml.card("GPU-aaaaaaaa-0000-0000-0000-000000000000", "NVIDIA A100-SXM4-40GB",
            40 * GIB, 3 * GIB, 35, 12, 41, 215_500, "00000000:07:00.0");
    static final String H100 = FakeNvml.card("GPU-bbbbbbbb-0000-0000-0000-000000000001", "NVIDIA H100 80GB HBM3",
            80 * GIB, 70 * GIB, 97, 64, 66, 612_000, "00000000:3B:00.0");

    @TempDir
    Path dir;
    FakeNvml fake;
    final List<String> skips = new CopyOnWriteArrayList<>();
    final SkipReporter reporter = (key, item) -> skips.add(key.source() + "/" + key.kind() + "/" + key.reason()
            + "/" + item);
    private final List<HostCardSource> opened = new ArrayList<>();

    @BeforeEach
    void compileFake() {
        fake = FakeNvml.create(FakeNvml.CURRENT, dir);
    }

    @AfterEach
    void closeSources() {
        fake.script("");
        opened.forEach(HostCardSource::close);
    }

    /** A source over {@code nvml}, closed after the test. */
    NvmlHostCards open(FakeNvml nvml, Duration timeout, Duration retryAfter) {
        return closedAfterTheTest(Nvml.open(List.of(nvml.libraryPath()), timeout, retryAfter, 4));
    }

    /** {@code source}, closed after the test. */
    <S extends HostCardSource> S closedAfterTheTest(S source) {
        opened.add(source);
        return source;
    }
}
