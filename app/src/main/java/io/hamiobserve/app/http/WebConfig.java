package io.hamiobserve.app.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS and basic auth for an endpoint, read from a web configuration file in the format of
 * Prometheus's exporter-toolkit ({@code --web.config.file}):
 * <pre>
 * tls_server_config:
 *   cert_file: server.crt          # PEM certificate chain
 *   key_file: server.key           # PEM private key (PKCS#8, PKCS#1 or SEC1)
 *   client_auth_type: RequireAndVerifyClientCert
 *   client_ca_file: ca.crt         # PEM CA certificates that sign client certificates
 * basic_auth_users:
 *   prometheus: $2y$10$...         # bcrypt hash of the password
 * </pre>
 * Relative paths are resolved against the file's directory. Unknown keys are refused rather than
 * ignored, so a security setting this implementation lacks never goes silently unenforced.
 *
 * @param tls   empty when the endpoint serves plain HTTP
 * @param users user name to bcrypt hash; empty means no authentication
 */
public record WebConfig(Optional<Tls> tls, Map<String, String> users) {

    /** exporter-toolkit's client certificate policies. */
    public enum ClientAuth {
        NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert
    }

    /** PEM files of the server's identity and, optionally, the CA of its clients. */
    public record Tls(Path certFile, Path keyFile, Optional<Path> clientCaFile, ClientAuth clientAuth) {
        public Tls {
            Objects.requireNonNull(certFile);
            Objects.requireNonNull(keyFile);
            Objects.requireNonNull(clientCaFile);
            Objects.requireNonNull(clientAuth);
        }
    }

    public WebConfig {
        Objects.requireNonNull(tls);
        users = Map.copyOf(users);
    }

    /** Reads a web configuration file; throws {@link IllegalArgumentException} with a message for the user. */
    public static WebConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException unreadable) {
            throw new IllegalArgumentException("cannot read web config " + file + ": " + unreadable.getMessage());
        }
        Path base = file.toAbsolutePath().getParent();
        Map<String, Map<String, String>> sections = parse(text, file);
        for (String section : sections.keySet()) {
            if (!List.of("tls_server_config", "basic_auth_users").contains(section)) {
                throw new IllegalArgumentException(file + ": unsupported section " + section);
            }
        }
        Optional<Tls> tls = Optional.empty();
        Map<String, String> tlsKeys = sections.get("tls_server_config");
        if (tlsKeys != null && !tlsKeys.isEmpty()) {
            for (String key : tlsKeys.keySet()) {
                if (!List.of("cert_file", "key_file", "client_ca_file", "client_auth_type").contains(key)) {
                    throw new IllegalArgumentException(file + ": unsupported tls_server_config key " + key);
                }
            }
            String cert = tlsKeys.get("cert_file");
            String key = tlsKeys.get("key_file");
            if (cert == null || key == null) {
                throw new IllegalArgumentException(file + ": tls_server_config needs cert_file and key_file");
            }
            ClientAuth clientAuth;
            try {
                clientAuth = ClientAuth.valueOf(tlsKeys.getOrDefault("client_auth_type", "NoClientCert"));
            } catch (IllegalArgumentException unknown) {
                throw new IllegalArgumentException(file + ": unknown client_auth_type "
                        + tlsKeys.get("client_auth_type"));
            }
            Optional<Path> clientCa = Optional.ofNullable(tlsKeys.get("client_ca_file")).map(base::resolve);
            if (clientCa.isEmpty() && (clientAuth == ClientAuth.VerifyClientCertIfGiven
                    || clientAuth == ClientAuth.RequireAndVerifyClientCert)) {
                throw new IllegalArgumentException(file + ": client_auth_type " + clientAuth + " needs client_ca_file");
            }
            tls = Optional.of(new Tls(base.resolve(cert), base.resolve(key), clientCa, clientAuth));
        }
        Map<String, String> users = sections.getOrDefault("basic_auth_users", Map.of());
        for (Map.Entry<String, String> user : users.entrySet()) {
            if (!user.getValue().matches("\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
                throw new IllegalArgumentException(file + ": the password of " + user.getKey()
                        + " is not a bcrypt hash");
            }
        }
        return new WebConfig(tls, users);
    }

    /**
     * The subset of YAML these files use: top-level keys, each with a block of {@code key: value}
     * lines indented below it; {@code #} comments; single- or double-quoted scalars; {@code {}} for
     * an empty block.
     */
    private static Map<String, Map<String, String>> parse(String text, Path file) {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        int number = 0;
        for (String raw : text.split("\r?\n", -1)) {
            number++;
            String line = stripComment(raw);
            if (line.isBlank() || line.strip().equals("---")) {
                continue;
            }
            boolean indented = Character.isWhitespace(line.charAt(0));
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException(file + ":" + number + ": expected key: value");
            }
            String key = unquote(line.substring(0, colon).strip());
            String value = unquote(line.substring(colon + 1).strip());
            if (!indented) {
                if (!value.isEmpty() && !value.equals("{}") && !value.equals("null")) {
                    throw new IllegalArgumentException(file + ":" + number + ": " + key + " must be a block");
                }
                current = new LinkedHashMap<>();
                if (sections.put(key, current) != null) {
                    throw new IllegalArgumentException(file + ":" + number + ": " + key + " given twice");
                }
            } else {
                if (current == null) {
                    throw new IllegalArgumentException(file + ":" + number + ": indented line outside a section");
                }
                if (current.put(key, value) != null) {
                    throw new IllegalArgumentException(file + ":" + number + ": " + key + " given twice");
                }
            }
        }
        return sections;
    }

    private static String stripComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
            } else if (c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i);
            }
        }
        return line;
    }

    private static String unquote(String value) {
        if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"")
                || value.startsWith("'") && value.endsWith("'"))) {
            return value.substring(1, value.length() - 1);
        }
        return value;
    }
}
