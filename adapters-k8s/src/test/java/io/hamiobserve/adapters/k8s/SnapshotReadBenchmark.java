package io.hamiobserve.adapters.k8s;

import io.hamiobserve.domain.AllocationView;
import io.hamiobserve.domain.Ledger;
import io.hamiobserve.ports.SchedulerLedgerSource;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads cluster dumps as big as real clusters give: {@code kubectl get nodes,pods,resourcequotas
 * -A -o yaml} and {@code -o json} of about 200 MB each (by default), with pods and nodes as kubectl
 * prints them (managed fields, last-applied configuration, statuses, image lists), and reports the
 * time to the synced ledger and the peak heap of the read. Run with
 * {@code bin/bench adapters-k8s io.hamiobserve.adapters.k8s.SnapshotReadBenchmark [MEGABYTES]};
 * {@code BENCH_JAVA_OPTS="-XX:+UseParallelGC -Xmx358m"} measures it with the scheduler image's JVM.
 */
public final class SnapshotReadBenchmark {
    private static final int NODES = 1_000;
    private static final int CARDS_PER_NODE = 8;

    private SnapshotReadBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        long megabytes = args.length > 0 ? Long.parseLong(args[0]) : 200;
        Path directory = Files.createTempDirectory("snapshot-bench");
        try {
            for (boolean json : List.of(false, true)) {
                Path file = directory.resolve(json ? "cluster.json" : "cluster.yaml");
                long pods = write(file, json, NODES, megabytes << 20);
                read(file, pods);
                Files.delete(file);
            }
        } finally {
            Files.deleteIfExists(directory);
        }
    }

    private static void read(Path file, long pods) throws IOException {
        System.gc();
        // Peak heap in use, sampled every 2 ms while the file is read (java.management is not on this module's path).
        Runtime runtime = Runtime.getRuntime();
        AtomicLong peak = new AtomicLong();
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(runtime.totalMemory() - runtime.freeMemory(), Math::max);
                try {
                    Thread.sleep(2);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        });
        AtomicLong skips = new AtomicLong();
        Ledger ledger = new Ledger();
        long start = System.nanoTime();
        try (SchedulerLedgerSource source = KubernetesSources.snapshot(file)) {
            source.start(ledger, (key, item) -> skips.incrementAndGet());
            source.failure().ifPresent(failure -> {
                throw new IllegalStateException(failure.message());
            });
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        sampler.interrupt();
        AllocationView view = ledger.view();
        System.out.printf("%s: %.1f MB, %,d pods, %,d nodes: synced in %.1f s (%.1f MB/s), peak heap %.0f MiB "
                        + "(max %.0f MiB), %,d cards, %,d containers in the view, %d skips%n",
                file.getFileName(), Files.size(file) / 1e6, pods, NODES, seconds, Files.size(file) / 1e6 / seconds,
                peak.get() / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576.0, view.cards().size(),
                view.containers().size(), skips.get());
    }

    /** Writes {@code nodes} nodes, then pods placed on them until the file reaches {@code bytes}; returns the number of pods. */
    static long write(Path file, boolean json, int nodes, long bytes) throws IOException {
        long pods = 0;
        try (Writer out = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 20)) {
            CountingWriter counted = new CountingWriter(out);
            counted.write(json ? "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n" : "apiVersion: v1\nitems:\n");
            for (int n = 0; n < nodes; n++) {
                counted.write(json ? (n == 0 ? "" : ",\n") + nodeJson(n) : nodeYaml(n));
            }
            while (counted.count < bytes - 10_000) {
                counted.write(json ? ",\n" + podJson(pods, nodes) : podYaml(pods, nodes));
                pods++;
            }
            counted.write(json ? "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n"
                    + "    }\n}\n" : "kind: List\nmetadata:\n  resourceVersion: \"\"\n");
        }
        return pods;
    }

    private static String uuid(long node, long card) {
        return String.format("GPU-%08x-0000-4000-8000-%012x", node, card);
    }

    private static String register(int node) {
        StringBuilder cards = new StringBuilder("[");
        for (int c = 0; c < CARDS_PER_NODE; c++) {
            cards.append(c == 0 ? "" : ",").append("{\\\"id\\\":\\\"").append(uuid(node, c))
                    .append("\\\",\\\"index\\\":").append(c).append(",\\\"count\\\":10,\\\"devmem\\\":81559,"
                            + "\\\"devcore\\\":100,\\\"type\\\":\\\"NVIDIA-NVIDIA H100 80GB HBM3\\\",\\\"numa\\\":0,"
                            + "\\\"mode\\\":\\\"hami-core\\\",\\\"health\\\":true}");
        }
        return cards.append("]").toString();
    }

    private static String nodeYaml(int n) {
        StringBuilder images = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            images.append("    - names:\n      - registry.example.com/team-").append(i)
                    .append("/model-server@sha256:").append("ab12".repeat(16)).append("\n      sizeBytes: ")
                    .append(1_000_000_000L + i).append('\n');
        }
        return """
                - apiVersion: v1
                  kind: Node
                  metadata:
                    annotations:
                      hami.io/node-handshake: Reported 2026-11-29 09:12:03.452
                      hami.io/node-nvidia-register: "%s"
                      node.alpha.kubernetes.io/ttl: "0"
                    labels:
                      kubernetes.io/hostname: gpu-node-%05d
                      nvidia.com/gpu.present: "true"
                    name: gpu-node-%05d
                    resourceVersion: "%d"
                    uid: 3b1e4c7a-0d7e-4c55-9a4b-%012d
                  status:
                    capacity: {cpu: "128", memory: 2113439028Ki, nvidia.com/gpu: "80", pods: "110"}
                    images:
                %s""".formatted(register(n), n, n, 1000 + n, n, images);
    }

    private static String nodeJson(int n) {
        StringBuilder images = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            images.append(i == 0 ? "" : ",").append("{\"names\":[\"registry.example.com/team-").append(i)
                    .append("/model-server@sha256:").append("ab12".repeat(16)).append("\"],\"sizeBytes\":")
                    .append(1_000_000_000L + i).append('}');
        }
        return """
                        {
                            "apiVersion": "v1",
                            "kind": "Node",
                            "metadata": {
                                "annotations": {
                                    "hami.io/node-handshake": "Reported 2026-11-29 09:12:03.452",
                                    "hami.io/node-nvidia-register": "%s"
                                },
                                "labels": {"kubernetes.io/hostname": "gpu-node-%05d"},
                                "name": "gpu-node-%05d",
                                "resourceVersion": "%d",
                                "uid": "3b1e4c7a-0d7e-4c55-9a4b-%012d"
                            },
                            "status": {
                                "capacity": {"cpu": "128", "memory": "2113439028Ki", "nvidia.com/gpu": "80"},
                                "images": [%s]
                            }
                        }""".formatted(register(n), n, n, 1000 + n, n, images);
    }

    private static String lastApplied(long p) {
        return ("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{},\"name\":\"infer-" + p
                + "\",\"namespace\":\"team-" + (p % 40) + "\"},\"spec\":{\"containers\":[{\"image\":\"registry.example"
                + ".com/llm/server:2.4\",\"name\":\"server\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\","
                + "\"nvidia.com/gpumem\":\"8000\"}}}]}}").replace("\"", "\\\"");
    }

    private static String allocated(long p, int nodes) {
        long node = p % nodes;
        return uuid(node, p % CARDS_PER_NODE) + ",NVIDIA,8000,20:;";
    }

    private static String podYaml(long p, int nodes) {
        return """
                - apiVersion: v1
                  kind: Pod
                  metadata:
                    annotations:
                      hami.io/bind-phase: success
                      hami.io/vgpu-node: gpu-node-%05d
                      hami.io/vgpu-devices-allocated: %s
                      hami.io/vgpu-devices-to-allocate: ;
                      kubectl.kubernetes.io/last-applied-configuration: "%s"
                    creationTimestamp: "2026-11-29T09:12:00Z"
                    labels:
                      app: infer
                      hami.io/vgpu-node: gpu-node-%05d
                    managedFields:
                    - apiVersion: v1
                      fieldsType: FieldsV1
                      fieldsV1:
                        f:metadata:
                          f:annotations:
                            .: {}
                            f:kubectl.kubernetes.io/last-applied-configuration: {}
                        f:spec:
                          f:containers:
                            k:{"name":"server"}:
                              .: {}
                              f:image: {}
                              f:name: {}
                              f:resources: {}
                      manager: kubectl-client-side-apply
                      operation: Update
                      time: "2026-11-29T09:12:00Z"
                    name: infer-%d
                    namespace: team-%d
                    resourceVersion: "%d"
                    uid: 6f0e1d2c-aaaa-4bbb-8ccc-%012d
                  spec:
                    containers:
                    - env:
                      - {name: MODEL, value: llama-70b}
                      - {name: CUDA_DEVICE_MEMORY_LIMIT_0, value: 8000m}
                      image: registry.example.com/llm/server:2.4
                      name: server
                      resources:
                        limits: {nvidia.com/gpu: "1", nvidia.com/gpumem: "8000", nvidia.com/gpucores: "20"}
                      volumeMounts:
                      - {mountPath: /var/run/secrets/kubernetes.io/serviceaccount, name: kube-api-access, readOnly: true}
                    nodeName: gpu-node-%05d
                    schedulerName: hami-scheduler
                  status:
                    conditions:
                    - {lastTransitionTime: "2026-11-29T09:12:05Z", status: "True", type: Ready}
                    - {lastTransitionTime: "2026-11-29T09:12:01Z", status: "True", type: PodScheduled}
                    containerStatuses:
                    - containerID: containerd://%064d
                      image: registry.example.com/llm/server:2.4
                      name: server
                      ready: true
                      restartCount: 0
                      state: {running: {startedAt: "2026-11-29T09:12:04Z"}}
                    phase: Running
                    podIP: 10.42.%d.%d
                """.formatted(p % nodes, allocated(p, nodes), lastApplied(p), p % nodes, p, p % 40, 2000 + p, p, p % nodes, p,
                p / 256 % 256, p % 256);
    }

    private static String podJson(long p, int nodes) {
        return """
                        {
                            "apiVersion": "v1",
                            "kind": "Pod",
                            "metadata": {
                                "annotations": {
                                    "hami.io/bind-phase": "success",
                                    "hami.io/vgpu-node": "gpu-node-%05d",
                                    "hami.io/vgpu-devices-allocated": "%s",
                                    "hami.io/vgpu-devices-to-allocate": ";",
                                    "kubectl.kubernetes.io/last-applied-configuration": "%s"
                                },
                                "creationTimestamp": "2026-11-29T09:12:00Z",
                                "labels": {"app": "infer", "hami.io/vgpu-node": "gpu-node-%05d"},
                                "managedFields": [{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {
                                    "f:spec": {"f:containers": {"k:{\\"name\\":\\"server\\"}": {".": {}, "f:image": {}}}}},
                                    "manager": "kubectl-client-side-apply", "operation": "Update",
                                    "time": "2026-11-29T09:12:00Z"}],
                                "name": "infer-%d",
                                "namespace": "team-%d",
                                "resourceVersion": "%d",
                                "uid": "6f0e1d2c-aaaa-4bbb-8ccc-%012d"
                            },
                            "spec": {
                                "containers": [{
                                    "env": [{"name": "MODEL", "value": "llama-70b"},
                                            {"name": "CUDA_DEVICE_MEMORY_LIMIT_0", "value": "8000m"}],
                                    "image": "registry.example.com/llm/server:2.4",
                                    "name": "server",
                                    "resources": {"limits": {"nvidia.com/gpu": "1", "nvidia.com/gpumem": "8000"}},
                                    "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                                                      "name": "kube-api-access", "readOnly": true}]
                                }],
                                "nodeName": "gpu-node-%05d",
                                "schedulerName": "hami-scheduler"
                            },
                            "status": {
                                "conditions": [{"lastTransitionTime": "2026-11-29T09:12:05Z", "status": "True",
                                                "type": "Ready"}],
                                "containerStatuses": [{"containerID": "containerd://%064d",
                                    "image": "registry.example.com/llm/server:2.4", "name": "server", "ready": true,
                                    "restartCount": 0, "state": {"running": {"startedAt": "2026-11-29T09:12:04Z"}}}],
                                "phase": "Running",
                                "podIP": "10.42.%d.%d"
                            }
                        }""".formatted(p % nodes, allocated(p, nodes), lastApplied(p), p % nodes, p, p % 40, 2000 + p, p,
                p % nodes, p, p / 256 % 256, p % 256);
    }

    /** Counts characters written; the dumps are ASCII, so characters are bytes. */
    private static final class CountingWriter {
        private final Writer out;
        long count;

        CountingWriter(Writer out) {
            this.out = out;
        }

        void write(String text) throws IOException {
            out.write(text);
            count += text.length();
        }
    }
}
