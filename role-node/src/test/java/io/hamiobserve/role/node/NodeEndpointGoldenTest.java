package io.hamiobserve.role.node;

import io.hamiobserve.app.testing.Expositions;
import io.hamiobserve.exposition.testing.Promtool;
import com.sun.jna.NativeLibrary;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.hamiobserve.testkit.CacheFileImage;
import io.hamiobserve.adapters.cachefile.CacheFiles;
import io.hamiobserve.adapters.k8s.KubernetesSources;
import io.hamiobserve.adapters.nvml.Nvml;
import io.hamiobserve.adapters.nvml.ProcCgroupOwners;
import io.hamiobserve.exposition.ExpositionFormat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node endpoint assembled from the real adapters, as the {@code node} command wires them: NVML
 * through JNA on a scripted fake {@code libnvidia-ml} compiled by gcc, HAMi-Core cache files in the
 * real binary layout, the node's pod directory from a fabric8 informer on the mock API server, and
 * process owners from a fake {@code /proc}. Its whole exposition equals a golden file and passes
 * {@code promtool check metrics}.
 *
 * <p>The state: card A (A100) holds the brief's pod (8192 MiB allocated, 2100 MiB used) and a pod
 * started with {@code CUDA_DISABLE_CONTROL=true} (2048 MiB allocated, 6144 MiB used, no cache
 * file); card B (T4) cannot report its temperature; card C (H100) is held whole by a pod without
 * HAMi-Core, whose processes' memory and SM utilisation (the fake driver samples them at every call)
 * become its usage series, labelled {@code source="nvml_process"}, and one of whose processes also
 * runs on card A, which it does not hold (skipped, {@code card_not_allocated}); one cache file is
 * corrupt and one belongs to a pod the API server does not know.
 */
class NodeEndpointGoldenTest {
    private static final String NODE = "gpu-node-gold";
    private static final String CARD_A = "GPU-5f1c2a8e-6b0d-4a5e-9d3c-1a2b3c4d5e01";
    private static final String CARD_B = "GPU-9a8b7c6d-1111-2222-3333-444455556602";
    private static final String CARD_C = "GPU-c0ffee00-4444-5555-6666-777788889903";
    private static final long NOW = 1_795_953_600L;
    private static final long MIB = 1L << 20;
    private static final Path GOLDEN = Path.of("src/test/resources/golden/usage-node-adapters.prom");

    private KubernetesMockServer apiServer;
    private final Map<String, String> savedProperties = new HashMap<>();
    private UsageRole role;

    @BeforeEach
    void startApiServer() throws IOException {
        apiServer = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        apiServer.init(InetAddress.getLoopbackAddress(), 0);
        // KubernetesSources.nodePods(node) configures its client as fabric8 users expect; these
        // system properties are fabric8's documented way to point it at an API server.
        setProperty("kubernetes.master", "http://127.0.0.1:" + apiServer.getPort());
        setProperty("kubernetes.auth.tryKubeConfig", "false");
        setProperty("kubernetes.auth.tryServiceAccount", "false");
        setProperty("kubernetes.namespace", "default");
    }

    private void setProperty(String key, String value) {
        savedProperties.put(key, System.getProperty(key));
        System.setProperty(key, value);
    }

    @AfterEach
    void stop() {
        if (role != null) {
            role.close();
        }
        try {
            apiServer.destroy();
        } catch (IllegalStateException slowShutdown) {
            // The mock server waits a bounded time for open watches to drain; that is not this test's concern.
            System.err.println("mock API server shutdown: " + slowShutdown.getMessage());
        }
        savedProperties.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
    }

    @Test
    void realAdaptersRenderTheGoldenExposition(@TempDir Path dir) throws Exception {
        Path library = compileFakeNvml(dir);
        Path script = dir.resolve("nvml.script");
        Files.writeString(script, """
                card uuid=%s name=NVIDIA_A100-SXM4-40GB total=%d used=%d util=64 memutil=31 temp=58 power=231000 pci=00000000:17:00.0
                card uuid=%s name=Tesla_T4 total=%d used=%d util=3 memutil=1 temp=40 power=27000 pci=00000000:3B:00.0
                card uuid=%s name=NVIDIA_H100_80GB_HBM3 total=%d used=%d util=91 memutil=40 temp=61 power=500000 pci=00000000:5E:00.0
                fail temperature 3 1
                procs 0 4101:%d 4102:%d 4103:%d 4303:%d
                procs 2 4301:%d 4302:%d
                samples 0 4101:now:33 4102:now:70 4303:now:2
                samples 2 4301:now:85 4302:now:6
                """.formatted(CARD_A, 40960 * MIB, (420 + 2100 + 6144 + 128) * MIB, CARD_B, 15360 * MIB, 420 * MIB,
                CARD_C, 81559 * MIB, (510 + 30000 + 2000) * MIB,
                2100 * MIB, 6144 * MIB, 256 * MIB, 128 * MIB, 30000 * MIB, 2000 * MIB));
        // Held until the end of the test: JNA unloads an unreferenced library, and the fake's script
        // setting would go with it.
        NativeLibrary fake = NativeLibrary.getInstance(library.toString());
        fake.getFunction("fakeNvmlSetScript").invoke(Void.class, new Object[] {script.toString()});

        String llm;
        String sim;
        String broken;
        String whole;
        try (KubernetesClient client = apiServer.createClient()) {
            // The API server assigns the UIDs (deterministically, in creation order).
            llm = client.pods().inNamespace("ml").resource(pod("llm-inference", "server",
                    CARD_A + ",NVIDIA,8192,30:;", "containerd://" + "a".repeat(64))).create().getMetadata().getUid();
            sim = client.pods().inNamespace("research").resource(pod("cuda-sim", "sim",
                    CARD_A + ",NVIDIA,2048,10:;", "containerd://" + "b".repeat(64))).create().getMetadata().getUid();
            broken = client.pods().inNamespace("ml").resource(pod("broken-cache", "main",
                    CARD_B + ",NVIDIA,1024,10:;", "containerd://" + "c".repeat(64))).create().getMetadata().getUid();
            // nvidia.com/gpu: 1 and no gpumem: HAMi records the card's whole memory.
            whole = client.pods().inNamespace("ml").resource(pod("whole-card", "train",
                    CARD_C + ",NVIDIA,81559,100:;", "containerd://" + "d".repeat(64))).create().getMetadata().getUid();
        }
        Path containers = dir.resolve("vgpu/containers");
        CacheFileImage.v1(2).device(CARD_A, 8192 * MIB, 30).lastKernelTime(NOW - 7)
                .process(7, 4101, CacheFileImage.DeviceUse.of(304 * MIB, 48 * MIB, 1748 * MIB, 41)).build()
                .writeTo(created(containers.resolve(llm + "_server/libvgpu.cache")));
        Files.write(created(containers.resolve(broken + "_main/libvgpu.cache")), new byte[4096]);
        CacheFileImage.v1(2).device(CARD_B, 1024 * MIB, 10).lastKernelTime(NOW - 60)
                .process(9, 4199, CacheFileImage.DeviceUse.of(304 * MIB, 0, 0, 0)).build()
                .writeTo(created(containers.resolve("0000dead-0000-4000-8000-000000000009_old/libvgpu.cache")));

        Path proc = dir.resolve("proc");
        cgroup(proc, 4101, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + llm.replace('-', '_') + ".slice/"
                + "cri-containerd-" + "a".repeat(64) + ".scope");
        cgroup(proc, 4102, "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + sim.replace('-', '_') + ".slice/"
                + "cri-containerd-" + "b".repeat(64) + ".scope");
        cgroup(proc, 4103, "0::/system.slice/nvidia-persistenced.service");
        for (long pid : new long[] {4301, 4302, 4303}) {
            cgroup(proc, pid, "0::/kubepods.slice/kubepods-pod" + whole.replace('-', '_') + ".slice/"
                    + "cri-containerd-" + "d".repeat(64) + ".scope");
        }

        role = new UsageRole(NODE, Nvml.open(library.toString(), Duration.ofSeconds(5)), CacheFiles.directory(containers),
                KubernetesSources.nodePods(NODE), Optional.of(ProcCgroupOwners.of(proc)), false, Expositions.BUILD,
                Clock.fixed(java.time.Instant.ofEpochSecond(NOW), ZoneOffset.UTC)).start();
        // The pod directory fills in the background: wait until every pod is known and two scrapes agree.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String exposition = "";
        String previous = null;
        while (System.nanoTime() < deadline) {
            exposition = Expositions.render(role, ExpositionFormat.PROMETHEUS_TEXT);
            String settled = settled(exposition);
            boolean complete = role.ready() && exposition.contains("hami_host_gpu_memory_used_bytes{")
                    && exposition.contains("pod=\"llm-inference\"") && exposition.contains("pod=\"cuda-sim\"")
                    && exposition.contains("pod=\"whole-card\"")
                    && exposition.contains("hami_observe_unknown_container_records 1.0");
            if (complete && settled.equals(previous)) {
                break;
            }
            previous = complete ? settled : null;
            Thread.sleep(200);
        }
        // Skip counts grow with every scrape the wait above took; the golden records which skips exist.
        String normalised = settled(exposition);
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(GOLDEN, normalised);
        }
        assertEquals(Files.readString(GOLDEN), normalised, "exposition differs from " + GOLDEN);
        Promtool.assertClean(exposition);
        assertTrue(role.ready(), "the pod directory synced");
        assertTrue(fake.getFunction("fakeNvmlInitCalls").invokeInt(new Object[0]) >= 1, "NVML was initialised");
    }

    /** The exposition without what changes from scrape to scrape: durations and growing skip counts. */
    private static String settled(String exposition) {
        return Expositions.withoutDurations(exposition)
                .replaceAll("(?m)^(hami_observe_skipped_inputs_total\\{[^}]*}) .*$", "$1 <count>");
    }

    private static Pod pod(String name, String container, String allocated, String containerId) {
        return new PodBuilder()
                .withNewMetadata().withName(name)
                .addToLabels("hami.io/vgpu-node", NODE)
                .addToAnnotations("hami.io/vgpu-node", NODE)
                .addToAnnotations("hami.io/bind-phase", "success")
                .addToAnnotations("hami.io/vgpu-devices-allocated", allocated)
                .endMetadata()
                .withNewSpec().withNodeName(NODE).addToContainers(new ContainerBuilder().withName(container).build())
                .endSpec()
                .withNewStatus().withPhase("Running")
                .addToContainerStatuses(new ContainerStatusBuilder().withName(container).withContainerID(containerId)
                        .build())
                .endStatus()
                .build();
    }

    private static Path created(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        return file;
    }

    private static void cgroup(Path proc, long pid, String line) throws IOException {
        Files.writeString(created(proc.resolve(Long.toString(pid)).resolve("cgroup")), line + "\n");
    }

    /** gcc builds the adapters-nvml tests' fake driver into this test's directory. */
    private static Path compileFakeNvml(Path dir) throws IOException, InterruptedException {
        Path root = Path.of(System.getProperty("project.root", "..")).toAbsolutePath().normalize();
        Path source = root.resolve("adapters-nvml/src/test/c/fake_nvml.c");
        Path library = dir.resolve("libfake-nvidia-ml-node-golden.so.1");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-shared", "-fPIC", "-o", library.toString(), source.toString(),
                "-lpthread").redirectErrorStream(true).start();
        String output = new String(gcc.getInputStream().readAllBytes());
        assertTrue(gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0, "gcc failed:\n" + output);
        return library;
    }
}
