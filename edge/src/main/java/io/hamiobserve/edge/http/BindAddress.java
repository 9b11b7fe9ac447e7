package io.hamiobserve.edge.http;

/**
 * A bind address as the flags spell it: {@code :9395}, {@code 0.0.0.0:9395}, {@code 127.0.0.1:0},
 * {@code [::1]:9394}. An empty host means every interface.
 */
public record BindAddress(String host, int port) {
    public static BindAddress parse(String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("bind address " + address + " has no :PORT");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException notNumber) {
            throw new IllegalArgumentException("bind address " + address + " has no numeric port");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("bind address " + address + ": port out of range");
        }
        return new BindAddress(host.isEmpty() ? "0.0.0.0" : host, port);
    }
}
