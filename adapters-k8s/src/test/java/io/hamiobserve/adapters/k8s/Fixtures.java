package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceQuota;
import io.fabric8.kubernetes.api.model.ResourceQuotaBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.hamiobserve.ports.SkipKey;
import io.hamiobserve.ports.SkipReporter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Builders of the Kubernetes objects HAMi writes, and helpers shared by the tests. */
final class Fixtures {
    static final String REGISTER = "hami.io/node-nvidia-register";
    static final String ALLOCATED = "hami.io/vgpu-devices-allocated";
    static final String MIG = "hami.io/vgpu-mig-allocations";

    private Fixtures() {
    }

    static Node node(String name, String register) {
        NodeBuilder builder = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        if (register != null) {
            builder.editMetadata().addToAnnotations(REGISTER, register).endMetadata();
        }
        return builder.build();
    }

    static String card(String uuid, int index, long devmem) {
        return "{\"id\":\"" + uuid + "\",\"index\":" + index + ",\"count\":10,\"devmem\":" + devmem
                + ",\"devcore\":100,\"type\":\"NVIDIA A100\",\"health\":true}";
    }

    /** A pod placed on {@code node}, with the given app containers (and no init containers). */
    static PodBuilder pod(String namespace, String name, String node, String allocated, String... containers) {
        PodBuilder builder = new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withUid(UUID.randomUUID().toString()).endMetadata()
                .withNewSpec().endSpec()
                .withNewStatus().withPhase("Running").endStatus();
        if (node != null) {
            builder.editMetadata().addToLabels("hami.io/vgpu-node", node)
                    .addToAnnotations("hami.io/vgpu-node", node).endMetadata();
        }
        if (allocated != null) {
            builder.editMetadata().addToAnnotations(ALLOCATED, allocated).endMetadata();
        }
        for (String container : containers) {
            builder.editSpec().addToContainers(new ContainerBuilder().withName(container).withImage("cuda").build())
                    .endSpec();
        }
        return builder;
    }

    static ContainerStatus terminated(String name) {
        return new ContainerStatusBuilder().withName(name).withNewState().withNewTerminated().withExitCode(0)
                .endTerminated().endState().build();
    }

    static ResourceQuota quota(String namespace, String name, Map<String, String> hard) {
        Map<String, Quantity> quantities = new LinkedHashMap<>();
        hard.forEach((key, value) -> quantities.put(key, new Quantity(value)));
        return new ResourceQuotaBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withHard(quantities).endSpec().build();
    }

    /** A CRUD-mode mock API server (plain HTTP) on {@code port}, so that a restart keeps the address. */
    static KubernetesMockServer crudServer(int port) {
        KubernetesMockServer mock = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        mock.init(InetAddress.getLoopbackAddress(), port);
        return mock;
    }

    /** Stops a mock server; a slow shutdown on a busy machine is not a test failure. */
    static void destroy(KubernetesMockServer server) {
        try {
            server.destroy();
        } catch (IllegalStateException slow) {
            System.err.println("mock server shutdown: " + slow.getMessage());
        }
    }

    static int freePort() {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void await(String what, BooleanSupplier condition) {
        await(what, Duration.ofSeconds(20), condition);
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for " + what);
            }
        }
        fail("timed out waiting for " + what);
    }

    /** Records every skip as {@code kind/reason}. */
    static final class RecordingSkips implements SkipReporter {
        final List<String> skipped = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void skipped(SkipKey key, String item) {
            if (!"kubernetes".equals(key.source())) {
                throw new AssertionError("unexpected source " + key.source());
            }
            skipped.add(key.kind() + "/" + key.reason());
        }

        List<String> reasons() {
            synchronized (skipped) {
                return List.copyOf(skipped);
            }
        }
    }
}
