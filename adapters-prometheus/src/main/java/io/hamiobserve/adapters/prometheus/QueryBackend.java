package io.hamiobserve.adapters.prometheus;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The query backend as the HTTP client meets it: the {@link HttpClient} built for its TLS settings,
 * and each request decorated with its credentials, headers and query parameters, plus what the
 * engine it turned out to be needs ({@link Engine}). Secrets are read when a request is built,
 * files again when they changed, and never put into a message.
 */
final class QueryBackend {
    private final BackendConfig config;
    private volatile Engine engine = Engine.UNKNOWN;

    QueryBackend(BackendConfig config) {
        this.config = config;
    }

    BackendConfig config() {
        return config;
    }

    URI base() {
        return config.url();
    }

    /** The URL's query string, sent on every request's URL (empty for none). */
    String urlQuery() {
        return config.urlQuery();
    }

    Engine engine() {
        return engine;
    }

    /** What the engine turned out to be: its adaptations apply from the next query on. */
    void adapt(Engine detected) {
        this.engine = detected;
    }

    /** A client for this backend: its TLS settings, its redirect and HTTP/2 choices. */
    HttpClient client(Duration connectTimeout) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(connectTimeout)
                .followRedirects(config.followRedirects() ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER)
                .version(config.http2() ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1);
        config.tls().ifPresent(tls -> {
            builder.sslContext(sslContext(tls));
            SSLParameters parameters = new SSLParameters();
            // server_name is the name the certificate is verified against (NamedServer). As SNI it is
            // sent only for a URL with an IP address: for a host name the JDK's client sends that.
            tls.serverName().ifPresent(name -> parameters.setServerNames(List.of(new SNIHostName(name))));
            builder.sslParameters(parameters);
        });
        return builder.build();
    }

    /**
     * Sets the request's credentials and extra headers.
     *
     * @throws IOException when a secret's file cannot be read (the message names the file, not its content)
     */
    void decorate(HttpRequest.Builder request) throws IOException {
        var basic = config.basicAuth();
        if (basic.isPresent()) {
            String pair = basic.get().username() + ":" + basic.get().password().value();
            request.setHeader("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    pair.getBytes(StandardCharsets.UTF_8)));
        }
        var authorization = config.authorization();
        if (authorization.isPresent()) {
            String credentials = authorization.get().credentials().value();
            header(request, "Authorization", authorization.get().type() + " " + credentials,
                    authorization.get().credentials().describe());
        }
        for (Map.Entry<String, BackendConfig.Header> header : config.headers().entrySet()) {
            for (String value : header.getValue().values()) {
                header(request, header.getKey(), value, value);
            }
            for (BackendConfig.Secret secret : header.getValue().secrets()) {
                header(request, header.getKey(), secret.value(), secret.describe());
            }
        }
    }

    private static void header(HttpRequest.Builder request, String name, String value, String shown)
            throws IOException {
        try {
            request.header(name, value);
        } catch (IllegalArgumentException invalid) {
            throw new IOException("the value of header " + name + " (" + shown + ") is not a valid header value");
        }
    }

    /**
     * The configured query parameters and the engine's own, form-encoded, each preceded by '&':
     * appended to a query's form. {@code instant} says whether the query is an instant one.
     */
    String extraForm(boolean instant) {
        StringBuilder form = new StringBuilder();
        config.params().forEach((name, values) -> values.forEach(value -> form.append('&')
                .append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8))));
        (instant ? engine.instantParameters() : Map.<String, String>of()).forEach((name, value) -> {
            if (!config.params().containsKey(name)) {
                form.append('&').append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
            }
        });
        return form.toString();
    }

    private static SSLContext sslContext(BackendConfig.Tls tls) {
        try {
            TrustManager[] trust;
            if (tls.insecureSkipVerify()) {
                trust = new TrustManager[] {new TrustingEverything()};
            } else {
                KeyStore anchors = null;
                if (tls.caFile().isPresent()) {
                    anchors = KeyStore.getInstance(KeyStore.getDefaultType());
                    anchors.load(null, null);
                    int i = 0;
                    for (Certificate ca : certificates(tls.caFile().get())) {
                        anchors.setCertificateEntry("ca-" + i++, ca);
                    }
                }
                TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                factory.init(anchors);
                X509ExtendedTrustManager chain = (X509ExtendedTrustManager) factory.getTrustManagers()[0];
                trust = new TrustManager[] {tls.serverName().<TrustManager>map(name -> new NamedServer(chain, name))
                        .orElse(chain)};
            }
            KeyManagerFactory keys = null;
            if (tls.certFile().isPresent() && tls.keyFile().isPresent()) {
                KeyStore identity = KeyStore.getInstance("PKCS12");
                identity.load(null, null);
                List<Certificate> chain = certificates(tls.certFile().get());
                identity.setKeyEntry("client", privateKey(tls.keyFile().get()), new char[0],
                        chain.toArray(Certificate[]::new));
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(identity, new char[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust, null);
            return context;
        } catch (GeneralSecurityException | IOException unusable) {
            throw new IllegalArgumentException("the query backend's tls_config cannot be used: "
                    + unusable.getClass().getSimpleName() + (unusable.getMessage() == null ? ""
                    : ": " + unusable.getMessage().lines().findFirst().orElse("")));
        }
    }

    private static List<Certificate> certificates(Path file) throws IOException, CertificateException {
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> read = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (read.isEmpty()) {
                throw new IOException(file + " holds no certificate");
            }
            return new ArrayList<>(read);
        }
    }

    private static final Pattern PEM = Pattern.compile("-----BEGIN ([A-Z ]+)-----([^-]+)-----END \\1-----");

    /** A PEM private key: PKCS#8 (RSA or EC); PKCS#1 and SEC1 keys are refused with how to convert them. */
    private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        Matcher pem = PEM.matcher(Files.readString(file, StandardCharsets.US_ASCII));
        if (!pem.find()) {
            throw new IOException(file + " holds no PEM private key");
        }
        if (!pem.group(1).equals("PRIVATE KEY")) {
            throw new IOException(file + " holds a " + pem.group(1) + "; convert it to PKCS#8: openssl pkcs8 "
                    + "-topk8 -nocrypt -in " + file.getFileName());
        }
        byte[] der = Base64.getMimeDecoder().decode(pem.group(2));
        GeneralSecurityException last = null;
        for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThis) {
                last = notThis;
            }
        }
        throw new IOException(file + " holds a private key of no supported algorithm (RSA, EC, Ed25519)", last);
    }

    /**
     * The chain verified as usual, and the certificate's names matched against {@code server_name}
     * rather than the URL's host (a backend reached by IP or through a tunnel).
     */
    private static final class NamedServer extends X509ExtendedTrustManager {
        private final X509ExtendedTrustManager chain;
        private final String name;

        NamedServer(X509ExtendedTrustManager chain, String name) {
            this.chain = chain;
            this.name = name.toLowerCase(Locale.ROOT);
        }

        private void named(X509Certificate[] certificates, String authType) throws CertificateException {
            chain.checkServerTrusted(certificates, authType);
            List<String> names = new ArrayList<>();
            try {
                if (certificates[0].getSubjectAlternativeNames() != null) {
                    for (List<?> entry : certificates[0].getSubjectAlternativeNames()) {
                        if (Integer.valueOf(2).equals(entry.get(0)) || Integer.valueOf(7).equals(entry.get(0))) {
                            names.add(entry.get(1).toString().toLowerCase(Locale.ROOT));
                        }
                    }
                }
            } catch (CertificateParsingException unreadable) {
                throw new CertificateException("the server's certificate names cannot be read", unreadable);
            }
            for (String each : names) {
                if (each.equals(name) || (each.startsWith("*.") && name.indexOf('.') > 0
                        && name.substring(name.indexOf('.')).equals(each.substring(1)))) {
                    return;
                }
            }
            throw new CertificateException("the server's certificate is not for server_name " + name + " (it names "
                    + String.join(", ", names) + ")");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] certificates, String authType, Socket socket)
                throws CertificateException {
            named(certificates, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] certificates, String authType, SSLEngine engine)
                throws CertificateException {
            named(certificates, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] certificates, String authType) throws CertificateException {
            named(certificates, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] certificates, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("a client of the backend checks no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] certificates, String authType, SSLEngine engine)
                throws CertificateException {
            throw new CertificateException("a client of the backend checks no clients");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] certificates, String authType) throws CertificateException {
            throw new CertificateException("a client of the backend checks no clients");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return chain.getAcceptedIssuers();
        }
    }

    /** {@code insecure_skip_verify: true}: any certificate, any name (as Prometheus's option does). */
    private static final class TrustingEverything extends X509ExtendedTrustManager implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
