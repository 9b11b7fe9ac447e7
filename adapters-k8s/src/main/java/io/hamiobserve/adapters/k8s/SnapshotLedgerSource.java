package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;
import io.hamiobserve.ports.SkipReporter;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * The ledger from a file of Kubernetes objects, as {@code kubectl get nodes,pods,resourcequotas
 * -A -o yaml} (or {@code -o json}) prints them: a {@code v1 List}, multi-document YAML, or JSON.
 * Nodes, Pods and ResourceQuotas are applied; other kinds are ignored. An object that does not
 * map is reported and skipped; a file that cannot be read at all is a configuration error and
 * fails {@link #start} with an {@link UncheckedIOException}.
 */
final class SnapshotLedgerSource implements SchedulerLedgerSource {
    private static final Logger LOG = Logger.getLogger(SnapshotLedgerSource.class.getName());

    private final Path file;
    private final Vendors vendors;
    private final Clock clock;

    SnapshotLedgerSource(Path file, Vendors vendors, Clock clock) {
        this.file = file;
        this.vendors = vendors;
        this.clock = clock;
    }

    @Override
    public void start(Ledger ledger, SkipReporter reporter) {
        Skips skips = new Skips(reporter);
        LedgerFeed feed = new LedgerFeed(ledger, vendors, skips);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read snapshot " + file + ": " + e.getMessage(), e);
        }
        KubernetesSerialization serialization = new KubernetesSerialization();
        int applied = 0;
        for (JsonNode object : objects(text, skips)) {
            String kind = object.path("kind").asString("");
            String item = kind + " " + object.path("metadata").path("namespace").asString("") + "/"
                    + object.path("metadata").path("name").asString("");
            try {
                switch (kind) {
                    case "Node" -> feed.putNode(serialization.convertValue(object, Node.class));
                    case "Pod" -> feed.putPod(serialization.convertValue(object, Pod.class));
                    case "ResourceQuota" -> feed.putQuota(serialization.convertValue(object, ResourceQuota.class));
                    default -> {
                        continue;
                    }
                }
                applied++;
            } catch (RuntimeException bad) {
                skips.skip(Skips.SNAPSHOT, item, "bad_object", String.valueOf(bad.getMessage()));
            }
        }
        LOG.info(() -> "snapshot " + file + " applied to the ledger");
        ledger.markSynced(clock.millis());
        LOG.fine("objects applied: " + applied);
    }

    /** The objects of every document, with {@code List}s flattened. */
    static List<JsonNode> objects(String text, Skips skips) {
        List<JsonNode> documents = new ArrayList<>();
        String trimmed = text.stripLeading();
        // JSON may be indented with tabs, which YAML forbids, so JSON goes to a JSON parser.
        ObjectMapper mapper = trimmed.startsWith("{") || trimmed.startsWith("[")
                ? JsonMapper.builder().build() : YAMLMapper.builder().build();
        try (MappingIterator<JsonNode> iterator = mapper.readerFor(JsonNode.class).readValues(text)) {
            while (iterator.hasNextValue()) {
                JsonNode document = iterator.nextValue();
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    documents.add(document);
                }
            }
        } catch (JacksonException e) {
            // Documents before the broken one are kept: a truncated file still serves what it holds.
            skips.skip(Skips.SNAPSHOT, "document " + (documents.size() + 1), "bad_document", e.getOriginalMessage());
        }
        List<JsonNode> objects = new ArrayList<>();
        for (JsonNode document : documents) {
            flatten(document, objects);
        }
        return objects;
    }

    private static void flatten(JsonNode node, List<JsonNode> out) {
        if (node.isArray()) {
            node.forEach(element -> flatten(element, out));
        } else if (node.isObject() && node.path("items").isArray()) {
            node.path("items").forEach(element -> flatten(element, out));
        } else if (node.isObject()) {
            out.add(node);
        }
    }

    @Override
    public void close() {
        // Nothing held: the file was read once in start.
    }
}
