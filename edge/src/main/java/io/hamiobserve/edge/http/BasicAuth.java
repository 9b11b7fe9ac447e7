package io.hamiobserve.edge.http;

import at.favre.lib.crypto.bcrypt.BCrypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks {@code Authorization: Basic} credentials against bcrypt hashes, in work an unauthenticated
 * client cannot use to starve real scrapes or to learn which users exist.
 *
 * <ul>
 *   <li><b>Remembered verdicts.</b> Prometheus sends the same credentials every scrape, so a verdict
 *       is remembered as a SHA-256 of user, hash and password (never the password itself): a
 *       remembered success or failure costs a lookup. Successes and failures are kept apart, so
 *       a flood of wrong passwords cannot push the real credentials out.</li>
 *   <li><b>Bounded bcrypt.</b> bcrypt costs tens of milliseconds to seconds by design and holds a CPU
 *       throughout; a virtual thread doing it holds a carrier thread too. Checks run on their own
 *       small pool ({@link #checkers()} threads, half the CPUs) with a short queue; beyond it the
 *       answer is {@link Verdict#BUSY} at once, and past {@link #WAIT} too (the check still finishes
 *       and its verdict is remembered for the next request).</li>
 *   <li><b>Constant work.</b> An unknown user is checked against a dummy hash of the highest cost
 *       among the users, so a wrong password takes as long whether the user exists or not (when all
 *       users share one cost; see {@link #WebConfig#bcryptCosts()}).</li>
 * </ul>
 */
final class BasicAuth {
    /** What a request's credentials earn it. */
    enum Verdict { ALLOWED, REFUSED, BUSY }

    static final int MAX_REMEMBERED = 1024;
    static final int QUEUE = 16;
    /** The longest a request waits for its bcrypt check before it is answered busy. */
    static final Duration WAIT = Duration.ofSeconds(5);
    private static final int MAX_HEADER_LENGTH = 1024;

    private final Map<String, String> users;
    private final Set<String> succeeded = ConcurrentHashMap.newKeySet();
    private final Set<String> failed = ConcurrentHashMap.newKeySet();
    private final String dummyHash;
    private final ThreadPoolExecutor checks;

    BasicAuth(WebConfig web) {
        this.users = web.users();
        int cost = web.bcryptCosts().stream().max(Integer::compare).orElse(10);
        // A well-formed hash made at the least cost, then marked with the users' highest: checking a
        // password against it costs that much, and making it costs nothing at start-up.
        String cheap = new String(BCrypt.withDefaults().hash(4, "not any user's password"
                .getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
        this.dummyHash = cheap.substring(0, 4) + String.format("%02d", cost) + cheap.substring(6);
        int threads = checkers();
        this.checks = new ThreadPoolExecutor(threads, threads, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                Thread.ofPlatform().name("hami-observe-bcrypt-", 0).daemon().factory(),
                new ThreadPoolExecutor.AbortPolicy());
        // Idle between credential checks (the usual case, with verdicts remembered): no thread kept.
        checks.allowCoreThreadTimeOut(true);
    }

    /** bcrypt checks that run at once: half the CPUs, at least one, so scrapes keep a CPU. */
    static int checkers() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    /** The verdict on an {@code Authorization} header value. */
    Verdict check(Optional<String> authorization) {
        if (authorization.isEmpty() || authorization.get().length() > MAX_HEADER_LENGTH) {
            return Verdict.REFUSED;
        }
        String header = authorization.get().strip();
        if (!header.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Verdict.REFUSED;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            return Verdict.REFUSED;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            return Verdict.REFUSED;
        }
        String user = decoded.substring(0, colon);
        String password = decoded.substring(colon + 1);
        String hash = users.get(user);
        String fingerprint = fingerprint(user, hash == null ? "" : hash, password);
        if (succeeded.contains(fingerprint)) {
            return Verdict.ALLOWED;
        }
        if (failed.contains(fingerprint)) {
            return Verdict.REFUSED;
        }
        Future<Boolean> check;
        try {
            check = checks.submit(() -> {
                boolean matches = verify(password, hash == null ? dummyHash : hash) && hash != null;
                // Remembered by the check itself, so one that outlasts its request still serves the next.
                remember(matches ? succeeded : failed, fingerprint);
                return matches;
            });
        } catch (RejectedExecutionException full) {
            return Verdict.BUSY;
        }
        try {
            return check.get(WAIT.toMillis(), TimeUnit.MILLISECONDS) ? Verdict.ALLOWED : Verdict.REFUSED;
        } catch (TimeoutException late) {
            return Verdict.BUSY;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return Verdict.BUSY;
        } catch (ExecutionException bug) {
            return Verdict.REFUSED;
        }
    }

    private static void remember(Set<String> verdicts, String fingerprint) {
        if (verdicts.size() >= MAX_REMEMBERED) {
            verdicts.clear();
        }
        verdicts.add(fingerprint);
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
