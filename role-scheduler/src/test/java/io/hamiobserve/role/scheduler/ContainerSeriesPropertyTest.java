package io.hamiobserve.role.scheduler;

import io.hamiobserve.domain.AllocationView.ContainerAllocation;
import io.hamiobserve.domain.CardMode;
import io.hamiobserve.domain.ContainerShares;
import io.hamiobserve.domain.CoreUnit;
import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.DeviceUnits;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.domain.MemoryUnit;
import io.hamiobserve.domain.PodPhase;
import io.hamiobserve.domain.PodPlacement;
import io.hamiobserve.domain.PodRef;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HAMi v2.10's identity over random ledgers (init containers, several cards per container, one
 * card listed twice, finished and running init containers, pods that no longer count, cards of
 * several vendors): {@code sum by (device_uuid) (hami_vgpu_memory_allocated_bytes)} equals the
 * card's {@code hami_gpu_memory_allocated_bytes}, the same for cores, every HAMi container series
 * has {@code container_index="0"} and there is one per pod and card; v2.9's form is the
 * per-container detail series under HAMi's names.
 */
class ContainerSeriesPropertyTest {
    private static final int CARDS = 12;

    @Test
    void sumByCardOfThePodSeriesIsTheCardsAllocatedTotal() {
        for (long seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            Ledger ledger = randomLedger(random);
            Map<String, Map<Map<String, String>, Double>> series =
                    GaugeSeries.of(ledger.view(), ContainerSeries.POD_EFFECTIVE);
            String where = "seed " + seed;

            Map<String, Double> cardMemory = byCard(series.get("hami_gpu_memory_allocated_bytes"));
            Map<String, Double> cardCores = byCard(series.get("hami_gpu_core_allocated_ratio"));
            Map<String, Double> podMemory = byCard(series.get("hami_vgpu_memory_allocated_bytes"));
            Map<String, Double> podCores = byCard(series.get("hami_vgpu_core_allocated_ratio"));
            // Registered cards only: a card nobody registers is an inconsistency reported apart.
            podMemory.keySet().retainAll(cardMemory.keySet());
            podCores.keySet().retainAll(cardCores.keySet());
            cardMemory.values().removeIf(value -> value == 0);
            cardCores.values().removeIf(value -> value == 0);
            podMemory.values().removeIf(value -> value == 0);
            podCores.values().removeIf(value -> value == 0);
            assertEquals(cardMemory, podMemory, where);
            assertEquals(cardCores, podCores, where);

            Map<List<String>, Integer> perPodAndCard = new HashMap<>();
            for (Map<String, String> labels : series.getOrDefault("hami_vgpu_memory_allocated_bytes", Map.of())
                    .keySet()) {
                assertEquals("0", labels.get("container_index"), where);
                perPodAndCard.merge(List.of(labels.get("namespace"), labels.get("pod"), labels.get("device_uuid")),
                        1, Integer::sum);
            }
            perPodAndCard.values().forEach(count -> assertEquals(1, count, where));
        }
    }

    @Test
    void versionTwoNineIsThePerContainerDetailUnderHamisNames() {
        int withInit = 0;
        for (long seed = 0; seed < 100; seed++) {
            Ledger ledger = randomLedger(new Random(seed));
            Map<String, Map<Map<String, String>, Double>> series =
                    GaugeSeries.of(ledger.view(), ContainerSeries.PER_CONTAINER);
            Map<Map<String, String>, Double> detail = new HashMap<>();
            series.getOrDefault("hami_observe_vgpu_container_memory_allocated_bytes", Map.of())
                    .forEach((labels, value) -> {
                        Map<String, String> hami = new TreeMap<>(labels);
                        hami.remove("container");
                        hami.put("zone", "vGPU");
                        detail.put(hami, value);
                    });
            // Where a pod has the detail (HAMi's series cannot tell its containers apart) it is HAMi's
            // v2.9 series with the container's name.
            Map<Map<String, String>, Double> hami = new HashMap<>(series.getOrDefault("hami_vgpu_memory_allocated_bytes",
                    Map.of()));
            hami.keySet().removeIf(labels -> detail.keySet().stream().noneMatch(d -> samePod(d, labels)));
            assertEquals(detail, hami, "seed " + seed);
            withInit += (int) detail.keySet().stream().filter(labels -> !labels.get("container_index").equals("0"))
                    .count();
        }
        assertTrue(withInit > 0, "the ledgers hold containers past position 0");
    }

    /**
     * What a reader of shares takes (the console's ShareSeries): the detail where a pod has it, else
     * HAMi's series joined with the name of the container at its position. It equals each container's
     * own share of each card, in both forms, while the pods whose one container HAMi's series
     * describe get no detail at all.
     */
    @Test
    void aShareIsTheDetailWhereThePodHasItElseHamisSeriesNamedByTheInfo() {
        int withoutDetail = 0;
        int withDetail = 0;
        for (ContainerSeries form : ContainerSeries.values()) {
            for (long seed = 0; seed < 200; seed++) {
                Ledger ledger = randomLedger(new Random(seed));
                Map<String, Map<Map<String, String>, Double>> series = GaugeSeries.of(ledger.view(), form);
                Map<Map<String, String>, Double> hami = series.getOrDefault("hami_vgpu_memory_allocated_bytes", Map.of());
                Map<Map<String, String>, Double> detail = series.getOrDefault(
                        "hami_observe_vgpu_container_memory_allocated_bytes", Map.of());
                Map<Map<String, String>, Double> info = series.getOrDefault("hami_observe_container_info", Map.of());
                Map<List<String>, Double> read = new HashMap<>();
                detail.forEach((labels, value) -> read.put(List.of(labels.get("namespace"), labels.get("pod"),
                        labels.get("container_index"), labels.get("container"), labels.get("device_uuid")), value));
                Map<List<String>, Integer> podsRead = new HashMap<>();
                hami.forEach((labels, value) -> {
                    if (detail.keySet().stream().anyMatch(d -> samePod(d, labels))) {
                        return;
                    }
                    String index = labels.get("container_index");
                    List<String> names = info.keySet().stream().filter(i -> samePod(i, labels)
                            && i.get("container_index").equals(index)).map(i -> i.get("container")).distinct().toList();
                    assertEquals(1, names.size(), "one container named at " + labels);
                    read.put(List.of(labels.get("namespace"), labels.get("pod"), index, names.getFirst(),
                            labels.get("device_uuid")), value);
                    podsRead.merge(List.of(labels.get("namespace"), labels.get("pod")), 1, Integer::sum);
                });
                Map<List<String>, Double> own = new HashMap<>();
                for (PodPlacement pod : ledger.view().pods()) {
                    for (ContainerAllocation allocation : ContainerAllocation.of(pod)) {
                        own.put(List.of(pod.pod().namespace(), pod.pod().name(),
                                Integer.toString(allocation.container().index()), allocation.container().name(),
                                allocation.uuid()), (double) allocation.memoryBytes());
                    }
                }
                // The pods the exporter writes (a pod that no longer counts has no series at all).
                Set<List<String>> written = new HashSet<>();
                hami.keySet().forEach(labels -> written.add(List.of(labels.get("namespace"), labels.get("pod"))));
                detail.keySet().forEach(labels -> written.add(List.of(labels.get("namespace"), labels.get("pod"))));
                own.keySet().removeIf(key -> !written.contains(key.subList(0, 2)));
                assertEquals(own, read, form + ", seed " + seed);
                withoutDetail += podsRead.size();
                withDetail += (int) detail.keySet().stream().map(l -> List.of(l.get("namespace"), l.get("pod")))
                        .distinct().count();
            }
        }
        assertTrue(withoutDetail > 100, "pods told by HAMi's series alone: " + withoutDetail);
        assertTrue(withDetail > 100, "pods with the detail: " + withDetail);
    }

    private static boolean samePod(Map<String, String> a, Map<String, String> b) {
        return a.get("namespace").equals(b.get("namespace")) && a.get("pod").equals(b.get("pod"));
    }

    private static Map<String, Double> byCard(Map<Map<String, String>, Double> series) {
        Map<String, Double> sums = new TreeMap<>();
        if (series != null) {
            series.forEach((labels, value) -> sums.merge(labels.get("device_uuid"), value, Double::sum));
        }
        return sums;
    }

    /** Cards on three nodes (NVIDIA, Ascend, Moore Threads) and pods that use them in every way. */
    private static Ledger randomLedger(Random random) {
        Ledger ledger = new Ledger();
        List<String> uuids = new ArrayList<>();
        String[] nodes = {"node-a", "node-b", "node-c"};
        DeviceUnits[] units = {DeviceUnits.MIB_AND_PERCENT, new DeviceUnits(MemoryUnit.MIB, CoreUnit.AI_CORES),
                new DeviceUnits(MemoryUnit.MIB, CoreUnit.CORE_SLICES)};
        String[] backends = {"NVIDIA", "Ascend910B3", "Mthreads"};
        for (int n = 0; n < nodes.length; n++) {
            List<VendorCard> cards = new ArrayList<>();
            for (int c = 0; c < CARDS / nodes.length; c++) {
                String uuid = "CARD-" + n + "-" + c;
                uuids.add(uuid);
                cards.add(new VendorCard(new RegisteredCard(uuid, c, 10, 40960, 100, backends[n], 0,
                        CardMode.HAMI_CORE, true), backends[n], units[n]));
            }
            ledger.putVendorCards(nodes[n], cards);
        }
        uuids.add("CARD-UNREGISTERED");
        int pods = 1 + random.nextInt(20);
        for (int p = 0; p < pods; p++) {
            int node = random.nextInt(nodes.length);
            int inits = random.nextInt(3);
            int apps = 1 + random.nextInt(3);
            List<ContainerShares> containers = new ArrayList<>();
            for (int c = 0; c < inits + apps; c++) {
                List<DeviceShare> devices = new ArrayList<>();
                int count = random.nextInt(3);
                for (int d = 0; d < count; d++) {
                    // Mostly the pod's own node's cards, sometimes another's or an unregistered one.
                    String uuid = random.nextInt(10) == 0 ? uuids.get(random.nextInt(uuids.size()))
                            : uuids.get(node * (CARDS / nodes.length) + random.nextInt(CARDS / nodes.length));
                    devices.add(new DeviceShare(uuid, backends[node], random.nextInt(8192), random.nextInt(60)));
                }
                containers.add(new ContainerShares(c, "c" + c, c < inits, devices));
            }
            PodPhase phase = random.nextInt(8) == 0 ? PodPhase.SUCCEEDED : PodPhase.RUNNING;
            ledger.putPod(new PodPlacement(new PodRef("ns-" + random.nextInt(3), "pod-" + p, "uid-" + p),
                    nodes[node], phase, random.nextBoolean(), containers));
        }
        return ledger;
    }
}
