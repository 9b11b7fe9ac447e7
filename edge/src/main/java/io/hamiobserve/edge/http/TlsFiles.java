package io.hamiobserve.edge.http;

import io.hamiobserve.configfiles.OperatorFile;
import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The TLS files of a web config, read and checked as a set: the server's private key and certificate
 * chain, and the CA certificates that sign clients' certificates. Reading fails with a one-line
 * message when a file is missing or not PEM, or when the key does not belong to the certificate (a
 * pair Helidon would accept, after which every handshake fails without a word).
 *
 * @param settings   the web config's TLS section the files were read from
 * @param key        the server's private key
 * @param chain      the server's certificate first, then its chain
 * @param clientCas  CA certificates for client certificates; empty without {@code client_ca_file}
 */
public record TlsFiles(WebConfig.Tls settings, PrivateKey key, List<X509Certificate> chain,
                       List<X509Certificate> clientCas) {
    /** The largest PEM file read, in bytes: a long chain is a few KiB. */
    static final int MAX_PEM_BYTES = 1 << 20;

    public TlsFiles {
        chain = List.copyOf(chain);
        clientCas = List.copyOf(clientCas);
    }

    /** Reads and checks the files; throws {@link IllegalArgumentException} with a one-line message. */
    public static TlsFiles read(WebConfig.Tls settings) {
        byte[] certBytes = OperatorFile.read(settings.certFile(), MAX_PEM_BYTES, "cert_file");
        byte[] keyBytes = OperatorFile.read(settings.keyFile(), MAX_PEM_BYTES, "key_file");
        List<X509Certificate> chain = certificates(certBytes, "cert_file " + settings.certFile());
        PrivateKey key;
        try {
            key = Keys.builder().pem(pem -> pem.key(Resource.create(settings.keyFile().toString(), keyBytes))).build()
                    .privateKey().orElseThrow(() -> new IllegalArgumentException("none found"));
        } catch (RuntimeException unusable) {
            throw new IllegalArgumentException("no usable PEM private key in key_file " + settings.keyFile() + ": "
                    + OperatorFile.oneLine(unusable.getMessage()));
        }
        if (!belongTogether(key, chain.getFirst().getPublicKey())) {
            throw new IllegalArgumentException("the private key in key_file " + settings.keyFile()
                    + " does not belong to the certificate in cert_file " + settings.certFile());
        }
        List<X509Certificate> clientCas = settings.clientCaFile().map(ca -> certificates(
                OperatorFile.read(ca, MAX_PEM_BYTES, "client_ca_file"), "client_ca_file " + ca)).orElse(List.of());
        return new TlsFiles(settings, key, chain, clientCas);
    }

    private static List<X509Certificate> certificates(byte[] pem, String where) {
        List<X509Certificate> certificates;
        try {
            certificates = Keys.builder().pem(keys -> keys.certificates(Resource.create(where, pem))).build().certs();
        } catch (RuntimeException unusable) {
            throw new IllegalArgumentException("no usable PEM certificate in " + where + ": "
                    + OperatorFile.oneLine(unusable.getMessage()));
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("no PEM certificate in " + where);
        }
        return certificates;
    }

    /**
     * Whether the private key is the certificate's: a signature made with the key must verify with
     * the certificate's public key. Key types without a plain signature (RSASSA-PSS, ...) are
     * left to the handshake.
     */
    static boolean belongTogether(PrivateKey key, PublicKey certified) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> null;
        };
        if (algorithm == null) {
            return true;
        }
        try {
            byte[] probe = "hami-observe: does this key belong to this certificate?".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certified);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException mismatched) {
            // A key of another type than the certificate's cannot even be used to verify.
            return false;
        }
    }

    /** When the first certificate of the chain expires (the handshake fails from then on). */
    public Instant earliestExpiry() {
        return chain.stream().map(certificate -> certificate.getNotAfter().toInstant()).min(Instant::compareTo)
                .orElseThrow();
    }

    /** What is wrong with the chain's dates at {@code now}, if anything: expired, or not valid yet. */
    public Optional<String> validityProblem(Instant now) {
        for (X509Certificate certificate : chain) {
            String subject = certificate.getSubjectX500Principal().getName();
            if (now.isAfter(certificate.getNotAfter().toInstant())) {
                return Optional.of("the certificate " + subject + " in cert_file " + settings.certFile()
                        + " expired at " + certificate.getNotAfter().toInstant() + "; clients that verify it refuse "
                        + "every connection");
            }
            if (now.isBefore(certificate.getNotBefore().toInstant())) {
                return Optional.of("the certificate " + subject + " in cert_file " + settings.certFile()
                        + " is not valid before " + certificate.getNotBefore().toInstant());
            }
        }
        return Optional.empty();
    }

    /** Helidon's TLS for these files, with exporter-toolkit's client certificate policy. */
    public Tls tls() {
        var builder = Tls.builder().privateKey(key).privateKeyCertChain(chain);
        if (!clientCas.isEmpty()) {
            builder.trust(clientCas);
        }
        builder.clientAuth(switch (settings.clientAuth()) {
            case NoClientCert -> TlsClientAuth.NONE;
            case RequestClientCert, VerifyClientCertIfGiven -> TlsClientAuth.OPTIONAL;
            case RequireAnyClientCert, RequireAndVerifyClientCert -> TlsClientAuth.REQUIRED;
        });
        if (settings.clientAuth() == WebConfig.ClientAuth.RequestClientCert
                || settings.clientAuth() == WebConfig.ClientAuth.RequireAnyClientCert) {
            // These two ask for a certificate without verifying it (exporter-toolkit's meaning).
            builder.trustAll(true);
        }
        try {
            return builder.build();
        } catch (RuntimeException unusable) {
            throw new IllegalArgumentException("cannot use the TLS files " + settings.certFile() + ", "
                    + settings.keyFile() + ": " + OperatorFile.oneLine(unusable.getMessage()));
        }
    }
}
