package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.domain.HostCardReading.CardProcess;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Per-process SM utilisation ({@code nvmlDeviceGetProcessUtilization}) through the fake driver:
 * NVML's sizing protocol, the latest sample per process, the card's previous newest timestamp
 * passed back as {@code lastSeenTimeStamp}, and what each answer of the driver makes of a
 * process's figure (a sample, 0 by the driver's account, or unknown).
 */
class NvmlProcessUtilizationTest extends FakeDriverTestBase {
    /**
     * A source whose start-up reading (begun when it opens) is over, taken while the script lists no
     * card: each reading covers the samples since the one before, so the first reading of a test
     * must not race with it.
     */
    private NvmlHostCards open(String script) throws Exception {
        NvmlHostCards source = open(fake, Duration.ofSeconds(5), Duration.ZERO);
        assertEquals(List.of(), source.read(reporter));
        fake.script(script);
        return source;
    }

    private static List<OptionalDouble> smUtil(HostCardReading card) {
        return card.processes().orElseThrow().stream().map(CardProcess::smUtilPercent).toList();
    }

    @Test
    void eachProcessGetsItsLatestSampleAndAProcessWithoutOneZero() throws Exception {
        // pid 10 sampled twice (the later one counts), pid 11 once, pid 12 not at all (idle SMs),
        // pid 99 sampled but not listed (a graphics process): ignored.
        NvmlHostCards source = open(A100 + "procs 0 10:1000 11:2000 12:3000\n"
                + "samples 0 10:1000:40 10:3000:65 11:2000:20 99:2500:90\n");

        HostCardReading card = source.read(reporter).get(0);

        assertEquals(List.of(new CardProcess(10, OptionalLong.of(1000), OptionalDouble.of(65)),
                new CardProcess(11, OptionalLong.of(2000), OptionalDouble.of(20)),
                new CardProcess(12, OptionalLong.of(3000), OptionalDouble.of(0))), card.processes().orElseThrow());
        assertEquals(0, fake.lastSeen(0), "the first reading asks for every sample the driver holds");
        assertEquals(List.of(), skips);
    }

    @Test
    void theNextReadingAsksOnlyForSamplesAfterTheNewestItHasSeenPerCard() throws Exception {
        String processes = "procs 0 10:1000 11:2000\nprocs 1 20:5000\n";
        NvmlHostCards source = open(A100 + H100 + processes + "samples 0 10:1000:40 11:3000:20\nsamples 1 20:7000:80\n");
        assertEquals(List.of(OptionalDouble.of(40), OptionalDouble.of(20)), smUtil(source.read(reporter).get(0)));

        // No newer sample: NVML's NOT_FOUND, no process used the SMs since, 0 for each.
        List<HostCardReading> idle = source.read(reporter);
        assertEquals(3000, fake.lastSeen(0));
        assertEquals(7000, fake.lastSeen(1));
        assertEquals(List.of(OptionalDouble.of(0), OptionalDouble.of(0)), smUtil(idle.get(0)));
        assertEquals(List.of(OptionalDouble.of(0)), smUtil(idle.get(1)));

        // Newer samples on card 0 only: those count, the older ones are not asked for again.
        fake.script(A100 + H100 + processes + "samples 0 10:1000:40 11:3000:20 10:4000:55\nsamples 1 20:7000:80\n");
        List<HostCardReading> busy = source.read(reporter);
        assertEquals(List.of(OptionalDouble.of(55), OptionalDouble.of(0)), smUtil(busy.get(0)));
        assertEquals(List.of(OptionalDouble.of(0)), smUtil(busy.get(1)));
        source.read(reporter);
        assertEquals(4000, fake.lastSeen(0));
        assertEquals(7000, fake.lastSeen(1));
        assertEquals(List.of(), skips);
    }

    @Test
    void aDriverThatCannotSayLeavesUtilisationOutQuietlyAndKeepsTheMemory() throws Exception {
        // As in MIG mode or on cards before Maxwell.
        List<HostCardReading> cards = open(A100 + H100 + "procs 0 10:1000\nprocs 1 20:5000\nsamples 0 10:1000:40\n"
                + "samples 1 20:5000:80\nfail process_utilization 3 0\n").read(reporter);

        assertEquals(List.of(new CardProcess(10, OptionalLong.of(1000), OptionalDouble.empty())),
                cards.get(0).processes().orElseThrow());
        assertEquals(List.of(OptionalDouble.of(80)), smUtil(cards.get(1)));
        assertEquals(List.of(), skips);
    }

    @Test
    void aFailingCallLeavesUtilisationOutAndIsReported() throws Exception {
        HostCardReading card = open(A100 + "procs 0 10:1000\nsamples 0 10:1000:40\nfail process_utilization 999\n")
                .read(reporter).get(0);

        assertEquals(List.of(OptionalDouble.empty()), smUtil(card));
        assertEquals(OptionalLong.of(3L << 30), card.memoryUsedBytes());
        assertEquals(List.of("nvml/field/unknown/card 0 GPU-aaaaaaaa-0000-0000-0000-000000000000 process_utilization"),
                skips);
    }

    @Test
    void aCardLostDuringTheCallIsLeftOut() throws Exception {
        List<HostCardReading> cards = open(A100 + H100 + "procs 0 10:1000\nprocs 1 20:5000\nfail process_utilization 15 1\n")
                .read(reporter);

        assertEquals(List.of(0), cards.stream().map(HostCardReading::index).toList());
        assertEquals(List.of("nvml/device/gpu_is_lost/card 1 GPU-bbbbbbbb-0000-0000-0000-000000000001"), skips);
    }

    @Test
    void manySamplesGrowTheBufferTheDriverAsksFor() throws Exception {
        // The source starts with room for 4 entries; 256 processes each with a sample.
        StringBuilder procs = new StringBuilder("procs 0");
        StringBuilder samples = new StringBuilder("samples 0");
        for (int pid = 5000; pid < 5256; pid++) {
            procs.append(' ').append(pid).append(':').append(pid);
            samples.append(' ').append(pid).append(':').append(pid).append(':').append(pid % 101);
        }
        NvmlHostCards source = open(A100 + procs + "\n" + samples + "\n");

        List<CardProcess> listed = source.read(reporter).get(0).processes().orElseThrow();

        assertEquals(256, listed.size());
        for (CardProcess process : listed) {
            assertEquals(OptionalDouble.of(process.pid() % 101), process.smUtilPercent(), "pid " + process.pid());
        }
        source.read(reporter);
        assertEquals(5255, fake.lastSeen(0));
        assertEquals(List.of(), skips);
    }

    @Test
    void aSampleAboveOneHundredPercentIsNoFigure() throws Exception {
        HostCardReading card = open(A100 + "procs 0 10:1000 11:1000\nsamples 0 10:1000:4294967295 11:1000:30\n")
                .read(reporter).get(0);

        assertEquals(List.of(OptionalDouble.empty(), OptionalDouble.of(30)), smUtil(card));
    }

    @Test
    void anIdleCardCostsNoUtilisationCall() throws Exception {
        NvmlHostCards source = open(A100 + H100 + "procs 1 20:5000\nsamples 1 20:5000:80\n");
        int before = fake.utilizationCalls();
        assertEquals(List.of(OptionalDouble.of(80)), smUtil(source.read(reporter).get(1)));
        // Card 1 only: one sizing call and one call with the buffer.
        assertEquals(2, fake.utilizationCalls() - before);

        before = fake.utilizationCalls();
        source.read(reporter);
        // Card 1 only again: its sizing call answers NOT_FOUND (nothing newer), so no second call.
        assertEquals(1, fake.utilizationCalls() - before);
    }

    @Test
    void aProcessKeptBusyHasItsFigureAtEveryReading() throws Exception {
        // The fake stamps "now" samples at each call, as the driver samples a process that keeps the SMs busy.
        NvmlHostCards source = open(A100 + "procs 0 10:1000 11:1000\nsamples 0 10:now:88\n");

        for (int reading = 0; reading < 3; reading++) {
            assertEquals(List.of(OptionalDouble.of(88), OptionalDouble.of(0)), smUtil(source.read(reporter).get(0)));
        }
        assertEquals(List.of(), skips);
    }
}
