package io.hamiobserve.app.http;

import at.favre.lib.crypto.bcrypt.BCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks {@code Authorization: Basic} credentials against bcrypt hashes. bcrypt costs tens of
 * milliseconds by design; Prometheus sends the same credentials every scrape, so a successful
 * check is remembered (as a SHA-256 of user, hash and password, never the password itself) and
 * later scrapes cost a hash lookup.
 */
final class BasicAuth {
    private static final int MAX_REMEMBERED = 1024;
    private static final int MAX_HEADER_LENGTH = 1024;

    private final Map<String, String> users;
    private final Set<String> verified = ConcurrentHashMap.newKeySet();
    /** Verified for unknown users too, so the answer time does not tell which users exist. */
    private final String dummyHash;

    BasicAuth(Map<String, String> users) {
        this.users = Map.copyOf(users);
        String cost = users.values().stream().findFirst().map(hash -> hash.substring(4, 6)).orElse("10");
        this.dummyHash = new String(BCrypt.withDefaults().hash(Integer.parseInt(cost),
                "not a password".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    /** Whether the {@code Authorization} header value names a user and the right password. */
    boolean allows(Optional<String> authorization) {
        if (authorization.isEmpty() || authorization.get().length() > MAX_HEADER_LENGTH) {
            return false;
        }
        String header = authorization.get().strip();
        if (!header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            return false;
        }
        String user = decoded.substring(0, colon);
        String password = decoded.substring(colon + 1);
        String hash = users.get(user);
        String fingerprint = fingerprint(user, hash == null ? "" : hash, password);
        if (hash != null && verified.contains(fingerprint)) {
            return true;
        }
        boolean matches = verify(password, hash == null ? dummyHash : hash) && hash != null;
        if (matches) {
            if (verified.size() >= MAX_REMEMBERED) {
                verified.clear();
            }
            verified.add(fingerprint);
        }
        return matches;
    }

    private static boolean verify(String password, String hash) {
        try {
            return BCrypt.verifyer().verify(password.getBytes(StandardCharsets.UTF_8),
                    hash.getBytes(StandardCharsets.UTF_8)).verified;
        } catch (IllegalArgumentException | IllegalStateException unusable) {
            // Over-long passwords and malformed hashes are refused, not errors.
            return false;
        }
    }

    private static String fingerprint(String user, String hash, String password) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {user, hash, password}) {
                digest.update(part.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            return Base64.getEncoder().encodeToString(digest.digest());
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
