package io.hamiobserve.vendors.all;

import io.hamiobserve.domain.DeviceShare;
import io.hamiobserve.domain.HamiCoreFigures;
import io.hamiobserve.domain.RegisteredCard;
import io.hamiobserve.domain.VendorCard;
import io.hamiobserve.ports.spi.DeviceProvider;
import io.hamiobserve.ports.spi.NodeDevices;
import io.hamiobserve.ports.spi.NodeView;
import io.hamiobserve.ports.spi.PodAllocation;
import io.hamiobserve.ports.spi.PodDevices;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mixed-vendor cluster dump ({@code mixed-vendor-cluster.yaml}), decoded by every provider
 * installed: each vendor's node registers the cards HAMi would list, each pod's allocations name
 * cards of its own node, nothing is skipped, and the whole decoding (cards with their units,
 * shares with the percent of the card they stand for and the core figure HAMi reports for them)
 * matches {@code mixed-vendor-cluster.decoded.txt}. The same dump feeds the scheduler's golden
 * exposition once the Kubernetes adapter reads it through the providers.
 */
class MixedVendorClusterTest {
    private static final String NODE_KEY = "hami.io/vgpu-node";
    private static List<DeviceProvider> providers;
    private static List<JsonNode> items;

    @BeforeAll
    static void load() throws IOException {
        providers = ServiceLoader.load(DeviceProvider.class).stream().map(ServiceLoader.Provider::get)
                .sorted(Comparator.comparing(DeviceProvider::name)).toList();
        try (InputStream dump = MixedVendorClusterTest.class.getResourceAsStream("/mixed-vendor-cluster.yaml")) {
            JsonNode list = YAMLMapper.builder().build().readTree(dump);
            items = new ArrayList<>();
            list.get("items").forEach(items::add);
        }
    }

    @Test
    void everyHamiVendorFindsItsNodeAndItsPodsAndNothingIsSkipped() {
        Set<String> registering = new TreeSet<>();
        Set<String> allocating = new TreeSet<>();
        for (JsonNode item : items) {
            for (DeviceProvider provider : providers) {
                if (kind(item, "Node")) {
                    NodeDevices devices = provider.decodeNode(node(item));
                    assertEquals(List.of(), devices.problems(), provider.name() + " on " + name(item));
                    if (!devices.cards().isEmpty()) {
                        registering.add(provider.name());
                    }
                } else if (kind(item, "Pod")) {
                    PodDevices devices = provider.decodePod(annotations(item));
                    assertEquals(List.of(), devices.problems(), provider.name() + " on " + name(item));
                    if (!devices.allocations().isEmpty()) {
                        allocating.add(provider.name());
                    }
                }
            }
        }
        assertTrue(registering.containsAll(HamiVendors.NAMES), registering::toString);
        assertTrue(allocating.containsAll(HamiVendors.NAMES), allocating::toString);
    }

    @Test
    void everyShareNamesACardOfItsOwnNode() {
        Map<String, Set<String>> cardsByNode = new HashMap<>();
        for (JsonNode item : items) {
            if (kind(item, "Node")) {
                for (DeviceProvider provider : providers) {
                    provider.decodeNode(node(item)).cards().forEach(card -> cardsByNode
                            .computeIfAbsent(name(item), n -> new HashSet<>()).add(card.card().uuid()));
                }
            }
        }
        int shares = 0;
        for (JsonNode item : items) {
            if (kind(item, "Pod")) {
                String node = annotations(item).get(NODE_KEY);
                for (DeviceProvider provider : providers) {
                    for (PodAllocation allocation : provider.decodePod(annotations(item)).allocations()) {
                        for (List<DeviceShare> container : allocation.containers()) {
                            for (DeviceShare share : container) {
                                assertTrue(cardsByNode.getOrDefault(node, Set.of()).contains(share.uuid()),
                                        name(item) + ": " + share.uuid() + " is not a card of " + node);
                                shares++;
                            }
                        }
                    }
                }
            }
        }
        assertTrue(shares >= 28, shares + " shares");
    }

    @Test
    void noTwoProvidersReadTheSameKey() {
        Map<String, String> owners = new HashMap<>();
        for (DeviceProvider provider : providers) {
            List<String> keys = new ArrayList<>(provider.keys().nodeAnnotations());
            keys.addAll(provider.keys().nodeResources());
            keys.addAll(provider.keys().podAnnotations());
            for (String key : keys) {
                String other = owners.put(key, provider.name());
                assertTrue(other == null, key + " is read by " + other + " and " + provider.name());
            }
        }
    }

    @Test
    void theDecodingIsTheGoldenOne() throws IOException {
        String actual = decoding();
        String golden;
        try (InputStream in = MixedVendorClusterTest.class.getResourceAsStream("/mixed-vendor-cluster.decoded.txt")) {
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!golden.equals(actual)) {
            Path written = Path.of("target", "mixed-vendor-cluster.decoded.txt");
            Files.writeString(written, actual);
            assertEquals(golden, actual, "decoding differs from the golden file; this run's is in " + written);
        }
    }

    /** Every card and share of the dump, one line each, with what its figures mean. */
    private static String decoding() {
        StringBuilder out = new StringBuilder();
        Map<String, VendorCard> cards = new LinkedHashMap<>();
        for (JsonNode item : items) {
            if (kind(item, "Node")) {
                out.append("node ").append(name(item)).append('\n');
                for (DeviceProvider provider : providers) {
                    for (VendorCard provided : provider.decodeNode(node(item)).cards()) {
                        RegisteredCard card = provided.card();
                        cards.put(card.uuid(), provided);
                        out.append(String.format(Locale.ROOT, "  %s %s %s index=%d type=%s shares=%d memory=%d %s "
                                        + "cores=%d %s numa=%d healthy=%s hami_core_limit=%s%n", provider.name(),
                                provided.backend(), card.uuid(), card.index(), card.type(), card.maxShares(),
                                card.memoryMib(), provided.units().memory().label(), card.cores(),
                                provided.units().cores().label(), card.numa(), card.healthy(),
                                number(HamiCoreFigures.limit(card.type(), card.cores()))));
                    }
                }
            }
        }
        for (JsonNode item : items) {
            if (kind(item, "Pod")) {
                Map<String, String> annotations = annotations(item);
                out.append("pod ").append(item.get("metadata").get("namespace").asString()).append('/')
                        .append(name(item)).append(" on ").append(annotations.get(NODE_KEY)).append('\n');
                for (DeviceProvider provider : providers) {
                    for (PodAllocation allocation : provider.decodePod(annotations).allocations()) {
                        for (int position = 0; position < allocation.containers().size(); position++) {
                            for (DeviceShare share : allocation.containers().get(position)) {
                                VendorCard card = cards.get(share.uuid());
                                out.append(String.format(Locale.ROOT, "  %s %s container=%d %s type=%s memory=%d "
                                                + "cores=%d percent_of_card=%s hami_cores=%s%n", provider.name(),
                                        allocation.key(), position, share.uuid(), share.vendor(), share.memoryMib(),
                                        share.cores(), card.units().cores().percentOfCard(share.cores(),
                                                card.card().cores()).stream().mapToObj(MixedVendorClusterTest::number)
                                                .findFirst().orElse("none"),
                                        number(HamiCoreFigures.allocated(card.card().type(), card.card().cores(),
                                                share.cores()))));
                            }
                        }
                    }
                }
            }
        }
        return out.toString();
    }

    private static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.2f", value);
    }

    private static boolean kind(JsonNode item, String kind) {
        return kind.equals(item.path("kind").asString());
    }

    private static String name(JsonNode item) {
        return item.get("metadata").get("name").asString();
    }

    static NodeView node(JsonNode item) {
        JsonNode status = item.path("status");
        return new NodeView(name(item), strings(item.get("metadata").get("annotations")),
                strings(item.get("metadata").get("labels")), strings(status.get("capacity")),
                strings(status.get("allocatable")));
    }

    private static Map<String, String> annotations(JsonNode item) {
        return strings(item.get("metadata").get("annotations"));
    }

    private static Map<String, String> strings(JsonNode map) {
        Map<String, String> strings = new LinkedHashMap<>();
        if (map != null && map.isObject()) {
            map.properties().forEach(entry -> strings.put(entry.getKey(), entry.getValue().asString()));
        }
        return strings;
    }
}
