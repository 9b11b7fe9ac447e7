package io.hamiobserve.adapters.k8s;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/**
 * fabric8's mock API server in CRUD mode on a fixed loopback port, with the two clients every
 * informer test needs: {@link #client} writes whole objects as {@code kubectl} would, and
 * {@link #ledgerClient} reads through the adapter's narrowed mapping, as production does. Both
 * clients retry and reconnect every 100 ms, so a test that stops and restarts the server (same port)
 * sees the sources recover in test time.
 */
final class MockCluster implements AutoCloseable {
    private final int port = Fixtures.freePort();
    private KubernetesMockServer server = Fixtures.crudServer(port);
    final KubernetesClient client = server.createClient(builder -> builder.editOrNewConfig()
            .withRequestRetryBackoffInterval(100).withWatchReconnectInterval(100).endConfig());
    final KubernetesClient ledgerClient = LedgerMapping.client(client.getConfiguration());

    /** The API server goes away; the clients stay, pointed at its address. */
    void stopServer() {
        Fixtures.destroy(server);
    }

    /** A new, empty API server on the same address. */
    void restartServer() {
        server = Fixtures.crudServer(port);
    }

    @Override
    public void close() {
        ledgerClient.close();
        client.close();
        Fixtures.destroy(server);
    }
}
