package io.hamiobserve.adapters.prometheus;

import io.hamiobserve.configfiles.OperatorFile;
import io.hamiobserve.configfiles.StrictYaml;

import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How to reach the query backend (Prometheus, VictoriaMetrics, Thanos Query, Mimir, Cortex): its
 * base URL, which may carry a path ({@code http://vmselect:8481/select/0/prometheus}), and the
 * client settings of Prometheus's own {@code http_config} YAML, the file {@code promtool
 * --http.config.file} reads, a documented subset:
 * <pre>
 * basic_auth: {username: u, password: p}        # or password_file
 * authorization: {type: Bearer, credentials_file: /var/run/secrets/token}   # or credentials
 * bearer_token_file: /var/run/secrets/token      # the older spelling of the same
 * tls_config: {ca_file: ca.crt, cert_file: c.crt, key_file: c.key, server_name: n, insecure_skip_verify: false}
 * http_headers:
 *   X-Scope-OrgID: {values: [team-a]}            # secrets: [...] for values never shown
 * follow_redirects: true
 * enable_http2: true
 * params:                                        # scrape_config's key: query parameters on every query
 *   max_source_resolution: [auto]
 * </pre>
 * A file (password, token, header) is read again when it changes, as Kubernetes rotates a mounted
 * token. Relative paths resolve against the file's directory. A key outside the subset is refused,
 * not ignored: a setting this client lacks (oauth2, a proxy) must not go silently unapplied.
 *
 * <p>Secrets never leave this object: {@link #toString()} and every message name the key, never
 * the value.
 */
public final class BackendConfig {
    /** The largest config file read: a config is a few lines. */
    static final int MAX_FILE_BYTES = 64 * 1024;

    /** Headers the client sets itself, or that a config must set through its own keys. */
    private static final Set<String> RESERVED_HEADERS = Set.of("authorization", "host", "content-length",
            "content-type", "accept", "connection", "upgrade", "expect", "te", "transfer-encoding");
    private static final Set<String> KEYS = Set.of("basic_auth", "authorization", "bearer_token_file", "tls_config",
            "http_headers", "follow_redirects", "enable_http2", "params");
    private static final Set<String> BASIC_AUTH_KEYS = Set.of("username", "password", "password_file");
    private static final Set<String> AUTHORIZATION_KEYS = Set.of("type", "credentials", "credentials_file");
    private static final Set<String> TLS_KEYS = Set.of("ca_file", "cert_file", "key_file", "server_name",
            "insecure_skip_verify");
    private static final Set<String> HEADER_KEYS = Set.of("values", "secrets", "files");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");


    /** A value given inline or read from a file when asked (and again when the file changes). */
    sealed interface Secret permits Secret.Inline, Secret.FromFile {
        /** The value now; a file that cannot be read is an {@link IOException} naming the file. */
        String value() throws IOException;

        /** Where the value comes from, without the value. */
        String describe();

        record Inline(String text) implements Secret {
            @Override
            public String value() {
                return text;
            }

            @Override
            public String describe() {
                return "<secret>";
            }

            @Override
            public String toString() {
                return describe();
            }
        }

        final class FromFile implements Secret {
            private final Path file;
            private record Read(long modified, long size, String value) {
            }

            private volatile Read last;

            FromFile(Path file) {
                this.file = file;
            }

            Path file() {
                return file;
            }

            /** Re-read when its modification time or size changed: one stat per request, not a read. */
            @Override
            public String value() throws IOException {
                long modified = Files.getLastModifiedTime(file).toMillis();
                long size = Files.size(file);
                Read known = last;
                if (known != null && known.modified() == modified && known.size() == size) {
                    return known.value();
                }
                if (!Files.isRegularFile(file) || size > MAX_FILE_BYTES) {
                    throw new IOException(file + " is not a regular file of at most " + MAX_FILE_BYTES + " bytes");
                }
                String value = Files.readString(file).strip();
                last = new Read(modified, size, value);
                return value;
            }

            @Override
            public String describe() {
                return "<secret from " + file + ">";
            }

            @Override
            public String toString() {
                return describe();
            }
        }
    }

    /** {@code basic_auth}. */
    record BasicAuth(String username, Secret password) {
    }

    /** {@code authorization} (or {@code bearer_token_file}): {@code Authorization: <type> <credentials>}. */
    record Authorization(String type, Secret credentials) {
    }

    /** {@code tls_config}. */
    record Tls(Optional<Path> caFile, Optional<Path> certFile, Optional<Path> keyFile, Optional<String> serverName,
               boolean insecureSkipVerify) {
    }

    /** One header: plain values, and values never shown (inline secrets or files). */
    record Header(List<String> values, List<Secret> secrets) {
    }

    private final URI url;
    /** The URL's own query string ({@code tenant=a}), sent on every request's URL; empty for none. */
    private final String urlQuery;
    private final Optional<BasicAuth> basicAuth;
    private final Optional<Authorization> authorization;
    private final Optional<Tls> tls;
    private final Map<String, Header> headers;
    private final Map<String, List<String>> params;
    private final boolean followRedirects;
    private final boolean http2;

    private BackendConfig(URI url, String urlQuery, Optional<BasicAuth> basicAuth, Optional<Authorization> authorization,
                          Optional<Tls> tls, Map<String, Header> headers, Map<String, List<String>> params,
                          boolean followRedirects, boolean http2) {
        this.url = Objects.requireNonNull(url);
        this.urlQuery = Objects.requireNonNull(urlQuery);
        this.basicAuth = basicAuth;
        this.authorization = authorization;
        this.tls = tls;
        this.headers = Map.copyOf(headers);
        this.params = Map.copyOf(params);
        this.followRedirects = followRedirects;
        this.http2 = http2;
    }

    /**
     * The backend at {@code url} with nothing else configured; {@code user:password@} in the URL
     * becomes basic auth (and leaves the URL).
     */
    public static BackendConfig of(URI url) {
        return withUrl(url, Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), Map.of(), false, true);
    }

    private static BackendConfig withUrl(URI url, Optional<BasicAuth> basicAuth, Optional<Authorization> authorization,
                                         Optional<Tls> tls, Map<String, Header> headers,
                                         Map<String, List<String>> params, boolean followRedirects, boolean http2) {
        if (url.getScheme() == null || !(url.getScheme().equals("http") || url.getScheme().equals("https"))
                || url.getHost() == null) {
            throw new IllegalArgumentException("a query backend URL needs http:// or https:// and a host: "
                    + withoutUserInfo(url));
        }
        String info = url.getRawUserInfo();
        if (info != null) {
            if (basicAuth.isPresent() || authorization.isPresent()) {
                throw new IllegalArgumentException("credentials both in the URL and in the config file: keep one");
            }
            String decoded = java.net.URLDecoder.decode(info, java.nio.charset.StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            basicAuth = Optional.of(new BasicAuth(colon < 0 ? decoded : decoded.substring(0, colon),
                    new Secret.Inline(colon < 0 ? "" : decoded.substring(colon + 1))));
        }
        String text = withoutUserInfo(url).toString();
        if (url.getRawFragment() != null) {
            throw new IllegalArgumentException("a query backend URL has no #fragment: " + withoutUserInfo(url));
        }
        // A gateway may read its tenant from the URL (?tenant=a): the query string stays on every
        // request's URL, apart from the base the API's paths are resolved against.
        String urlQuery = url.getRawQuery() == null ? "" : url.getRawQuery();
        if (!urlQuery.isEmpty()) {
            text = text.substring(0, text.indexOf('?'));
        }
        URI base = URI.create(text.endsWith("/") ? text : text + "/");
        return new BackendConfig(base, urlQuery, basicAuth, authorization, tls, headers, params, followRedirects, http2);
    }

    private static URI withoutUserInfo(URI url) {
        if (url.getRawUserInfo() == null) {
            return url;
        }
        return URI.create(url.toString().replace(url.getRawUserInfo() + "@", ""));
    }

    /**
     * The backend at {@code url} with the settings of the {@code http_config} file {@code file};
     * throws {@link IllegalArgumentException} with a one-line message that names the file and the
     * key at fault (never a secret's value). The secrets' files are read when a request needs
     * them, the TLS files when the client is built.
     */
    public static BackendConfig read(URI url, Path file) {
        byte[] bytes = OperatorFile.read(file, MAX_FILE_BYTES, "query backend config");
        return parse(url, bytes, file.toAbsolutePath().getParent(), file.toString());
    }

    /** Decodes a config's bytes; relative paths resolve against {@code base}; {@code name} prefixes messages. */
    static BackendConfig parse(URI url, byte[] bytes, Path base, String name) {
        // Jackson's message may quote the text it met, a secret perhaps: only the line is said.
        Optional<JsonNode> root = StrictYaml.root(bytes, name, StrictYaml.ParserMessage.WITHHELD);
        if (root.isEmpty()) {
            return of(url);
        }
        Map<String, JsonNode> keys = mapping(root.get(), "the document", KEYS, name);
        Optional<BasicAuth> basicAuth = Optional.empty();
        if (StrictYaml.present(keys.get("basic_auth"))) {
            Map<String, JsonNode> fields = mapping(keys.get("basic_auth"), "basic_auth", BASIC_AUTH_KEYS, name);
            String username = string(fields.get("username"), "basic_auth username", name).orElseThrow(() ->
                    new IllegalArgumentException(name + ": basic_auth needs username"));
            basicAuth = Optional.of(new BasicAuth(username, secret(fields, "password", "password_file", "basic_auth",
                    base, name).orElseThrow(() -> new IllegalArgumentException(name
                    + ": basic_auth needs password or password_file"))));
        }
        Optional<Authorization> authorization = Optional.empty();
        if (StrictYaml.present(keys.get("authorization"))) {
            Map<String, JsonNode> fields = mapping(keys.get("authorization"), "authorization", AUTHORIZATION_KEYS,
                    name);
            String type = string(fields.get("type"), "authorization type", name).orElse("Bearer");
            if (!TOKEN.matcher(type).matches() || type.equalsIgnoreCase("basic")) {
                throw new IllegalArgumentException(name + ": authorization type must be a single word other than "
                        + "Basic (use basic_auth)");
            }
            authorization = Optional.of(new Authorization(type, secret(fields, "credentials", "credentials_file",
                    "authorization", base, name).orElseThrow(() -> new IllegalArgumentException(name
                    + ": authorization needs credentials or credentials_file"))));
        }
        if (StrictYaml.present(keys.get("bearer_token_file"))) {
            if (authorization.isPresent()) {
                throw new IllegalArgumentException(name + ": bearer_token_file and authorization are mutually "
                        + "exclusive");
            }
            Path token = OperatorFile.resolve(base, string(keys.get("bearer_token_file"), "bearer_token_file", name).orElseThrow(),
                    "bearer_token_file", name);
            authorization = Optional.of(new Authorization("Bearer", new Secret.FromFile(token)));
        }
        if (basicAuth.isPresent() && authorization.isPresent()) {
            throw new IllegalArgumentException(name + ": basic_auth and authorization are mutually exclusive");
        }
        Optional<Tls> tls = Optional.empty();
        if (StrictYaml.present(keys.get("tls_config"))) {
            Map<String, JsonNode> fields = mapping(keys.get("tls_config"), "tls_config", TLS_KEYS, name);
            Optional<Path> cert = string(fields.get("cert_file"), "tls_config cert_file", name)
                    .map(file -> OperatorFile.resolve(base, file, "tls_config cert_file", name));
            Optional<Path> key = string(fields.get("key_file"), "tls_config key_file", name)
                    .map(file -> OperatorFile.resolve(base, file, "tls_config key_file", name));
            if (cert.isPresent() != key.isPresent()) {
                throw new IllegalArgumentException(name + ": tls_config needs both cert_file and key_file, or neither");
            }
            tls = Optional.of(new Tls(string(fields.get("ca_file"), "tls_config ca_file", name)
                    .map(file -> OperatorFile.resolve(base, file, "tls_config ca_file", name)), cert, key,
                    string(fields.get("server_name"), "tls_config server_name", name),
                    bool(fields.get("insecure_skip_verify"), "tls_config insecure_skip_verify", name, false)));
        }
        Map<String, Header> headers = new LinkedHashMap<>();
        if (StrictYaml.present(keys.get("http_headers"))) {
            for (Map.Entry<String, JsonNode> header : mapping(keys.get("http_headers"), "http_headers", null, name)
                    .entrySet()) {
                String header_ = header.getKey();
                if (!TOKEN.matcher(header_).matches()) {
                    throw new IllegalArgumentException(name + ": http_headers: " + OperatorFile.oneLine(header_)
                            + " is not a header name");
                }
                if (RESERVED_HEADERS.contains(header_.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException(name + ": http_headers: " + header_ + " is set by the client"
                            + (header_.equalsIgnoreCase("authorization") ? " (use authorization or basic_auth)" : ""));
                }
                Map<String, JsonNode> fields = mapping(header.getValue(), "http_headers " + header_, HEADER_KEYS, name);
                List<String> values = strings(fields.get("values"), "http_headers " + header_ + " values", name, false);
                List<Secret> secrets = new ArrayList<>();
                strings(fields.get("secrets"), "http_headers " + header_ + " secrets", name, true)
                        .forEach(value -> secrets.add(new Secret.Inline(value)));
                strings(fields.get("files"), "http_headers " + header_ + " files", name, false)
                        .forEach(file -> secrets.add(new Secret.FromFile(OperatorFile.resolve(base, file, "http_headers " + header_
                                + " files", name))));
                if (values.isEmpty() && secrets.isEmpty()) {
                    throw new IllegalArgumentException(name + ": http_headers " + header_ + " has no values");
                }
                headers.put(header_, new Header(values, secrets));
            }
        }
        Map<String, List<String>> params = new LinkedHashMap<>();
        if (StrictYaml.present(keys.get("params"))) {
            for (Map.Entry<String, JsonNode> param : mapping(keys.get("params"), "params", null, name).entrySet()) {
                if (PrometheusApi.OWN_PARAMETERS.contains(param.getKey())) {
                    throw new IllegalArgumentException(name + ": params: " + param.getKey()
                            + " is set by the console for each query");
                }
                List<String> values = strings(param.getValue(), "params " + OperatorFile.oneLine(param.getKey()), name, false);
                if (values.isEmpty()) {
                    throw new IllegalArgumentException(name + ": params " + OperatorFile.oneLine(param.getKey()) + " has no values");
                }
                params.put(param.getKey(), values);
            }
        }
        return withUrl(url, basicAuth, authorization, tls, headers, params,
                bool(keys.get("follow_redirects"), "follow_redirects", name, false),
                bool(keys.get("enable_http2"), "enable_http2", name, true));
    }

    /** Where queries go: the base URL, ending in '/', without credentials. */
    public URI url() {
        return url;
    }

    /** The URL's query string, without '?', sent on every request; empty for none. */
    String urlQuery() {
        return urlQuery;
    }

    Optional<BasicAuth> basicAuth() {
        return basicAuth;
    }

    Optional<Authorization> authorization() {
        return authorization;
    }

    Optional<Tls> tls() {
        return tls;
    }

    Map<String, Header> headers() {
        return headers;
    }

    /** Query parameters added to every query (Thanos: max_source_resolution, partial_response, dedup). */
    public Map<String, List<String>> params() {
        return params;
    }

    boolean followRedirects() {
        return followRedirects;
    }

    boolean http2() {
        return http2;
    }

    /** What is configured, secrets shown as {@code <secret>}: for logs and the console's status line. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder(url.toString());
        basicAuth.ifPresent(auth -> text.append(", basic auth as ").append(auth.username()).append(' ')
                .append(auth.password().describe()));
        authorization.ifPresent(auth -> text.append(", authorization ").append(auth.type()).append(' ')
                .append(auth.credentials().describe()));
        tls.ifPresent(settings -> {
            text.append(", TLS");
            settings.caFile().ifPresent(ca -> text.append(" ca ").append(ca));
            settings.certFile().ifPresent(cert -> text.append(" client cert ").append(cert));
            settings.serverName().ifPresent(server -> text.append(" server_name ").append(server));
            if (settings.insecureSkipVerify()) {
                text.append(" insecure_skip_verify");
            }
        });
        headers.forEach((header, value) -> text.append(", header ").append(header).append(": ")
                .append(String.join(",", value.values()))
                .append(value.secrets().isEmpty() ? "" : (value.values().isEmpty() ? "" : ",") + "<secret>"));
        params.forEach((param, values) -> text.append(", ").append(param).append('=').append(String.join(",", values)));
        return text.toString();
    }

    private static Optional<Secret> secret(Map<String, JsonNode> fields, String inline, String file, String section,
                                           Path base, String name) {
        Optional<String> value = string(fields.get(inline), section + " " + inline, name);
        Optional<String> path = string(fields.get(file), section + " " + file, name);
        if (value.isPresent() && path.isPresent()) {
            throw new IllegalArgumentException(name + ": " + section + " takes " + inline + " or " + file + ", not both");
        }
        if (path.isPresent()) {
            // Read when a request needs it, as Prometheus does: a Secret mounted later is fine.
            return Optional.of(new Secret.FromFile(OperatorFile.resolve(base, path.get(), section + " " + file, name)));
        }
        return value.map(Secret.Inline::new);
    }

    /** The fields of a mapping; the document's keys are "key X", a section's "SECTION key X". */
    private static Map<String, JsonNode> mapping(JsonNode node, String what, Set<String> allowed, String name) {
        return StrictYaml.mapping(node, what, what.equals("the document") ? "key" : what + " key", allowed, name);
    }

    private static Optional<String> string(JsonNode node, String what, String name) {
        if (!StrictYaml.present(node)) {
            return Optional.empty();
        }
        if (!node.isString() || node.stringValue().isEmpty()) {
            throw new IllegalArgumentException(name + ": " + what + " must be a non-empty string");
        }
        return Optional.of(node.stringValue());
    }

    /** A list of strings (one string alone is a list of one); {@code secret} keeps values out of messages. */
    private static List<String> strings(JsonNode node, String what, String name, boolean secret) {
        if (!StrictYaml.present(node)) {
            return List.of();
        }
        List<String> values = new ArrayList<>();
        if (node.isString()) {
            values.add(node.stringValue());
        } else if (node.isArray()) {
            for (JsonNode item : node) {
                if (!item.isString() && !item.isNumber() && !item.isBoolean()) {
                    throw new IllegalArgumentException(name + ": " + what + " must be a list of strings");
                }
                values.add(item.asString());
            }
        } else {
            throw new IllegalArgumentException(name + ": " + what + " must be a list of strings");
        }
        for (String value : values) {
            if (value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw new IllegalArgumentException(name + ": " + what + " holds a control character"
                        + (secret ? "" : " in " + OperatorFile.oneLine(value)));
            }
        }
        return values;
    }

    private static boolean bool(JsonNode node, String what, String name, boolean otherwise) {
        if (!StrictYaml.present(node)) {
            return otherwise;
        }
        if (!node.isBoolean()) {
            throw new IllegalArgumentException(name + ": " + what + " must be true or false");
        }
        return node.booleanValue();
    }

}
