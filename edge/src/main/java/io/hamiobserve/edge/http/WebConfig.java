package io.hamiobserve.edge.http;

import io.hamiobserve.configfiles.OperatorFile;
import io.hamiobserve.configfiles.StrictYaml;

import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.regex.Pattern;

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
 * ignored, so a security setting this implementation lacks never goes silently unenforced. The YAML
 * is read by Jackson's YAML module, already on the module path for the cluster snapshots.
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

    /**
     * The bcrypt costs of the users' hashes. More than one lets a wrong password's answer time tell
     * a user of lower cost from an unknown one (which is checked at the highest cost).
     */
    public Set<Integer> bcryptCosts() {
        return users.values().stream().map(hash -> Integer.parseInt(hash.substring(4, 6)))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The largest web config file read, in bytes: a config is a few lines; anything larger is refused unread. */
    public static final int MAX_FILE_BYTES = 64 * 1024;

    /** bcrypt's least cost, and the most a scrape can wait for: a cost-16 check takes seconds. */
    static final int MIN_BCRYPT_COST = 4;
    static final int MAX_BCRYPT_COST = 16;
    private static final Set<String> SECTIONS = Set.of("tls_server_config", "basic_auth_users");
    private static final Set<String> TLS_KEYS = Set.of("cert_file", "key_file", "client_ca_file", "client_auth_type");
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}");
    /**
     * Reads a web configuration file; throws {@link IllegalArgumentException} with a one-line message
     * for the user. Only a regular file of at most {@link #MAX_FILE_BYTES} is read (a device such as
     * {@code /dev/zero}, a FIFO or a directory is refused before it is opened).
     */
    public static WebConfig read(Path file) {
        return parse(OperatorFile.read(file, MAX_FILE_BYTES, "web config"), file.toAbsolutePath().getParent(),
                file.toString());
    }

    /**
     * Decodes a web config's bytes; relative paths resolve against {@code base}, and {@code name}
     * prefixes every message. Any input gives a config or an {@link IllegalArgumentException}.
     */
    static WebConfig parse(byte[] bytes, Path base, String name) {
        Optional<JsonNode> root = StrictYaml.root(bytes, name, StrictYaml.ParserMessage.QUOTED);
        if (root.isEmpty()) {
            return new WebConfig(Optional.empty(), Map.of());
        }
        Map<String, JsonNode> sections = StrictYaml.mapping(root.get(), "the document", "section", SECTIONS, name);
        Optional<Tls> tls = Optional.empty();
        JsonNode tlsSection = sections.get("tls_server_config");
        if (tlsSection != null && !tlsSection.isNull()) {
            tls = Optional.of(tls(strings(StrictYaml.mapping(tlsSection, "tls_server_config", "tls_server_config key",
                    TLS_KEYS, name),
                    "tls_server_config", name), base, name));
        }
        Map<String, String> users = Map.of();
        JsonNode userSection = sections.get("basic_auth_users");
        if (userSection != null && !userSection.isNull()) {
            users = strings(StrictYaml.mapping(userSection, "basic_auth_users", "user", null, name), "basic_auth_users",
                    name);
            for (Map.Entry<String, String> user : users.entrySet()) {
                if (!BCRYPT.matcher(user.getValue()).matches()) {
                    throw new IllegalArgumentException(name + ": the password of user " + OperatorFile.oneLine(user.getKey())
                            + " is not a bcrypt hash (make one with: htpasswd -nBC 10 USER)");
                }
                int cost = Integer.parseInt(user.getValue().substring(4, 6));
                if (cost < MIN_BCRYPT_COST || cost > MAX_BCRYPT_COST) {
                    throw new IllegalArgumentException(name + ": the bcrypt cost " + cost + " of user "
                            + OperatorFile.oneLine(user.getKey()) + " is outside " + MIN_BCRYPT_COST + "-" + MAX_BCRYPT_COST
                            + " (each step doubles a check's time; 16 is seconds a check)");
                }
            }
        }
        return new WebConfig(tls, users);
    }

    private static Tls tls(Map<String, String> keys, Path base, String name) {
        String cert = keys.get("cert_file");
        String key = keys.get("key_file");
        if (cert == null || key == null) {
            throw new IllegalArgumentException(name + ": tls_server_config needs cert_file and key_file");
        }
        ClientAuth clientAuth;
        try {
            clientAuth = ClientAuth.valueOf(keys.getOrDefault("client_auth_type", "NoClientCert"));
        } catch (IllegalArgumentException unknown) {
            throw new IllegalArgumentException(name + ": unknown client_auth_type " + OperatorFile.oneLine(keys.get("client_auth_type"))
                    + " (one of " + java.util.Arrays.toString(ClientAuth.values()) + ")");
        }
        Optional<Path> clientCa = Optional.ofNullable(keys.get("client_ca_file")).map(ca -> OperatorFile.resolve(base, ca, "client_ca_file", name));
        if (clientCa.isEmpty() && (clientAuth == ClientAuth.VerifyClientCertIfGiven
                || clientAuth == ClientAuth.RequireAndVerifyClientCert)) {
            throw new IllegalArgumentException(name + ": client_auth_type " + clientAuth + " needs client_ca_file");
        }
        return new Tls(OperatorFile.resolve(base, cert, "cert_file", name),
                OperatorFile.resolve(base, key, "key_file", name), clientCa, clientAuth);
    }

    private static Map<String, String> strings(Map<String, JsonNode> fields, String what, String name) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : fields.entrySet()) {
            JsonNode value = field.getValue();
            if (!value.isString() || value.stringValue().isEmpty()) {
                throw new IllegalArgumentException(name + ": " + what + " " + OperatorFile.oneLine(field.getKey())
                        + " must be a non-empty string");
            }
            values.put(field.getKey(), value.stringValue());
        }
        return values;
    }

}
