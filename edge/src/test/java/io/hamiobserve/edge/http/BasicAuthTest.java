package io.hamiobserve.edge.http;

import at.favre.lib.crypto.bcrypt.BCrypt;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Basic auth verdicts, and a wrong password costing the same whether its user exists or not. */
class BasicAuthTest {
    private static final int COST = 9;
    private static final String HASH = BCrypt.withDefaults().hashToString(COST, "s3cret".toCharArray());

    private static Optional<String> basic(String user, String password) {
        return Optional.of("Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8)));
    }

    private static BasicAuth auth() {
        return new BasicAuth(new WebConfig(Optional.empty(), Map.of("prometheus", HASH)));
    }

    @Test
    void verdicts() {
        BasicAuth auth = auth();
        assertEquals(BasicAuth.Verdict.ALLOWED, auth.check(basic("prometheus", "s3cret")));
        assertEquals(BasicAuth.Verdict.ALLOWED, auth.check(basic("prometheus", "s3cret")), "remembered");
        assertEquals(BasicAuth.Verdict.REFUSED, auth.check(basic("prometheus", "wrong")));
        assertEquals(BasicAuth.Verdict.REFUSED, auth.check(basic("prometheus", "wrong")), "remembered too");
        assertEquals(BasicAuth.Verdict.REFUSED, auth.check(basic("nobody", "s3cret")));
        assertEquals(BasicAuth.Verdict.REFUSED, auth.check(basic("prometheus", "s3cret" + "x".repeat(80))));
        for (String header : new String[] {"", "Basic", "Basic %%%", "Bearer abc", "Basic " + "QQ==".repeat(400),
            "Basic " + Base64.getEncoder().encodeToString("no-colon".getBytes(StandardCharsets.UTF_8))}) {
            assertEquals(BasicAuth.Verdict.REFUSED, auth.check(Optional.of(header)), header);
        }
        assertEquals(BasicAuth.Verdict.REFUSED, auth.check(Optional.empty()));
    }

    /**
     * Timing with generous bounds: the median answer to a wrong password (each new, so none is
     * remembered) for an existing user and for an unknown one are within a factor of two. Without a
     * dummy hash the unknown user would answer in microseconds instead of bcrypt's milliseconds.
     */
    @Test
    void aWrongPasswordCostsTheSameWhetherTheUserExistsOrNot() {
        BasicAuth auth = auth();
        auth.check(basic("prometheus", "warm-up"));
        auth.check(basic("nobody", "warm-up"));
        int rounds = 15;
        long[] known = new long[rounds];
        long[] unknown = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            known[i] = timed(auth, basic("prometheus", "wrong-" + i));
            unknown[i] = timed(auth, basic("nobody-" + i, "wrong-" + i));
        }
        double ratio = (double) median(unknown) / median(known);
        assertTrue(ratio > 0.5 && ratio < 2.0, "unknown/known median answer time: " + ratio + " ("
                + median(unknown) / 1000 + " us / " + median(known) / 1000 + " us)");
        assertTrue(median(known) > 1_000_000, "bcrypt at cost " + COST + " takes milliseconds: " + median(known));
    }

    @Test
    void theDummyHashHasTheHighestCostOfTheUsers() {
        WebConfig mixed = new WebConfig(Optional.empty(), Map.of("cheap",
                BCrypt.withDefaults().hashToString(4, "a".toCharArray()), "dear", HASH));
        assertEquals(java.util.List.of(4, COST), java.util.List.copyOf(mixed.bcryptCosts()));
        BasicAuth auth = new BasicAuth(mixed);
        auth.check(basic("nobody", "warm-up"));
        long[] unknown = new long[7];
        long[] dear = new long[7];
        for (int i = 0; i < unknown.length; i++) {
            unknown[i] = timed(auth, basic("nobody-" + i, "x" + i));
            dear[i] = timed(auth, basic("dear", "x" + i));
        }
        double ratio = (double) median(unknown) / median(dear);
        assertTrue(ratio > 0.5 && ratio < 2.0, "unknown users cost as much as the dearest user: " + ratio);
    }

    private static long timed(BasicAuth auth, Optional<String> header) {
        long started = System.nanoTime();
        assertEquals(BasicAuth.Verdict.REFUSED, auth.check(header));
        return System.nanoTime() - started;
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
