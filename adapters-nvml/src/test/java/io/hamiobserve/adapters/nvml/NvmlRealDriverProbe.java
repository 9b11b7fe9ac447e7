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
 * <p>Run: {@code bin/bench adapters-nvml io.hamiobserve.adapters.nvml.NvmlRealDriverProbe [library]}
 */
public final class NvmlRealDriverProbe {
    private NvmlRealDriverProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (HostCardSource source = args.length > 0
                ? Nvml.open(args[0], Nvml.DEFAULT_CALL_TIMEOUT) : Nvml.open()) {
            long start = System.nanoTime();
            List<HostCardReading> cards = source.read((key, item) ->
                    System.out.println("skipped " + key.source() + " " + key.kind() + " " + key.reason() + " " + item));
            System.out.printf("read %d cards in %.1f ms%n", cards.size(), (System.nanoTime() - start) / 1e6);
            List<Long> pids = new ArrayList<>();
            for (HostCardReading card : cards) {
                System.out.println(card);
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
