package io.hamiobserve.adapters.nvml;

import io.hamiobserve.domain.HostCardReading;
import io.hamiobserve.ports.HostCardSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints what the adapter reads from the real driver of this host, and the pod owners of the
 * listed processes, for checking struct layouts and figures against {@code nvidia-smi} on a
 * machine with a GPU. Not a test: there is no driver where the tests run.
 *
 * <p>Reads twice, a second apart: per-process SM utilisation is what the driver sampled since the
 * previous reading, so the first reading asks for every sample it holds and the second only for
 * newer ones (compare with {@code nvidia-smi pmon -c 1}, the same samples).
 *
 * <p>Run: {@code bin/bench adapters-nvml io.hamiobserve.adapters.nvml.NvmlRealDriverProbe [library]}
 */
public final class NvmlRealDriverProbe {
    private NvmlRealDriverProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (HostCardSource source = args.length > 0
                ? Nvml.open(args[0], Nvml.DEFAULT_CALL_TIMEOUT) : Nvml.open()) {
            List<HostCardReading> cards = List.of();
            for (int reading = 1; reading <= 2; reading++) {
                if (reading > 1) {
                    Thread.sleep(1000);
                }
                long start = System.nanoTime();
                cards = source.read((key, item) ->
                        System.out.println("skipped " + key.source() + " " + key.kind() + " " + key.reason() + " " + item));
                System.out.printf("reading %d: %d cards in %.1f ms%n", reading, cards.size(),
                        (System.nanoTime() - start) / 1e6);
                for (HostCardReading card : cards) {
                    System.out.println(card);
                    card.processes().ifPresent(list -> list.forEach(p -> System.out.printf(
                            "  card %d pid %d: memory %s bytes, SM %s%n", card.index(), p.pid(),
                            p.usedBytes().isPresent() ? Long.toString(p.usedBytes().getAsLong()) : "n/a",
                            p.smUtilPercent().isPresent() ? p.smUtilPercent().getAsDouble() + " %"
                                    : "not reported (not supported, MIG mode, or the call failed)")));
                }
            }
            List<Long> pids = new ArrayList<>();
            for (HostCardReading card : cards) {
                card.processes().ifPresent(list -> list.forEach(p -> pids.add(p.pid())));
            }
            try {
                Map<Long, ?> owners = ProcCgroupOwners.of(Path.of("/proc")).owners(pids);
                System.out.println("owners: " + owners);
            } catch (io.hamiobserve.ports.SourceUnavailableException e) {
                System.out.println("owners unavailable: " + e.getMessage());
            }
        }
    }
}
