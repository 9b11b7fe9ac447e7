package io.hamiobserve.edge.http;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.concurrency.limits.Limit;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PeerInfo;
import io.helidon.common.task.InterruptableTask;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerContext;
import io.helidon.webserver.ProxyProtocolData;
import io.helidon.webserver.Router;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * The only connection selector of an endpoint: Helidon's HTTP/1.1 connection, reading through a
 * {@link ConnectionGuard} and answering HTTP/1.0 requests.
 *
 * <p>Being the only selector matters: Helidon then hands it every accepted socket at once, instead
 * of first blocking until the socket's first byte to choose between selectors (a socket that
 * never sends one was held outside every timeout). Each connection reads from the socket through
 * the guard, which arms the read timeout and ends the connection after a response to
 * {@code Connection: close} (Helidon 4.5 sends the header and then waits for another request).
 *
 * <p>Helidon 4.5 serves HTTP/1.1 only and closes an HTTP/1.0 connection without a word. An
 * HTTP/1.0 request (HAProxy's and many probes' default, {@code ab}) is answered as HTTP/1.1 with
 * {@code Connection: close} (RFC 9110 §2.5 lets a server answer with its own minor version; a 1.0
 * client without keep-alive expects the close), and a missing {@code Host}, optional in 1.0, is
 * filled with the local address. Only the first request of a connection can be 1.0 this way, and
 * the close makes it the last.
 */
public final class GuardedHttp1 implements ServerConnectionSelector {
    private final Http1ConnectionSelector http1;
    private final ConnectionGuard guard;
    private final int maxHeadBytes;

    public GuardedHttp1(Http1Config config, ConnectionGuard guard) {
        this.http1 = Http1ConnectionSelector.builder().config(config).build();
        this.guard = guard;
        this.maxHeadBytes = config.maxPrologueLength() + config.maxHeadersSize();
    }

    @Override
    public int bytesToIdentifyConnection() {
        return 0;
    }

    @Override
    public Support supports(BufferData data) {
        return Support.SUPPORTED;
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return http1.supportedApplicationProtocols();
    }

    @Override
    public ServerConnection connection(ConnectionContext context) {
        return new Connection(context);
    }

    /** Helidon's HTTP/1.1 connection over a guarded reader. */
    private final class Connection implements ServerConnection, InterruptableTask<Void> {
        private final DataReader socket;
        private final ConnectionGuard.Tracked tracked;
        private final ServerConnection http;
        private final ConnectionContext context;
        private boolean first = true;

        Connection(ConnectionContext context) {
            this.context = context;
            this.socket = context.dataReader();
            ConnectionContext guarded = new ReadingThrough(context, DataReader.create(this::next));
            this.tracked = guard.track(guarded);
            this.http = http1.connection(guarded);
        }

        /** The guarded supply of bytes; {@code null} is the end of the connection. */
        private byte[] next() {
            tracked.reading();
            if (tracked.closing()) {
                return null;
            }
            byte[] bytes = pull();
            if (first) {
                first = false;
                bytes = firstRequestHead(bytes);
            }
            return bytes;
        }

        private byte[] pull() {
            socket.ensureAvailable();
            byte[] bytes = socket.readBytes(socket.available());
            tracked.arrived();
            return bytes;
        }

        /**
         * The bytes of the first request up to its request line (more when it is an HTTP/1.0 request,
         * up to the end of its headers), rewritten when it is HTTP/1.0.
         */
        private byte[] firstRequestHead(byte[] bytes) {
            int lineEnd;
            while ((lineEnd = Http10.lineEnd(bytes)) < 0 && bytes.length < maxHeadBytes) {
                byte[] more = pullOrNothing();
                if (more == null) {
                    return bytes;
                }
                bytes = concat(bytes, more);
            }
            if (lineEnd < 0 || !Http10.isHttp10(bytes, lineEnd)) {
                return bytes;
            }
            int headEnd;
            while ((headEnd = Http10.headEnd(bytes)) < 0 && bytes.length < maxHeadBytes) {
                byte[] more = pullOrNothing();
                if (more == null) {
                    return bytes;
                }
                bytes = concat(bytes, more);
            }
            return headEnd < 0 ? bytes : Http10.asHttp11(bytes, lineEnd, headEnd, hostHeader(context.localPeer()));
        }

        /** More bytes, or {@code null} at the end of the stream. */
        private byte[] pullOrNothing() {
            try {
                return pull();
            } catch (DataReader.InsufficientDataAvailableException ended) {
                return null;
            }
        }

        @Override
        public void handle(Limit limit) throws InterruptedException {
            try {
                http.handle(limit);
            } finally {
                tracked.forget();
            }
        }

        @Override
        public Duration idleTime() {
            return http.idleTime();
        }

        @Override
        public void close(boolean interrupt) {
            http.close(interrupt);
        }

        @Override
        public boolean canInterrupt() {
            return http instanceof InterruptableTask<?> task && task.canInterrupt();
        }
    }

    private static byte[] concat(byte[] head, byte[] tail) {
        byte[] joined = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, joined, head.length, tail.length);
        return joined;
    }

    private static String hostHeader(PeerInfo local) {
        String host = local.host();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + local.port();
    }

    /** A connection context that reads through another reader; everything else is the socket's. */
    private record ReadingThrough(ConnectionContext context, DataReader reader) implements ConnectionContext {
        @Override
        public DataReader dataReader() {
            return reader;
        }

        @Override
        public ListenerContext listenerContext() {
            return context.listenerContext();
        }

        @Override
        public ExecutorService executor() {
            return context.executor();
        }

        @Override
        public DataWriter dataWriter() {
            return context.dataWriter();
        }

        @Override
        public Router router() {
            return context.router();
        }

        @Override
        public Optional<ProxyProtocolData> proxyProtocolData() {
            return context.proxyProtocolData();
        }

        @Override
        public HelidonSocket serverSocket() {
            return context.serverSocket();
        }

        @Override
        public PeerInfo remotePeer() {
            return context.remotePeer();
        }

        @Override
        public PeerInfo localPeer() {
            return context.localPeer();
        }

        @Override
        public boolean isSecure() {
            return context.isSecure();
        }

        @Override
        public String socketId() {
            return context.socketId();
        }

        @Override
        public String childSocketId() {
            return context.childSocketId();
        }
    }
}
