package io.hamiobserve.adapters.k8s;

import java.time.DateTimeException;
import java.time.Instant;
import java.util.Optional;

/**
 * The moments an object states, read as epoch milliseconds once for every mapper: an RFC 3339
 * timestamp ({@code creationTimestamp}, {@code deletionTimestamp}) or HAMi's unix seconds
 * ({@code hami.io/bind-time}). Anything unreadable is empty, never an exception: a crafted object
 * costs a skipped fact, not the event.
 */
final class ObjectTimes {
    /** RFC 3339 times as the API server writes them are 20 to 35 characters; a longer one is crafted. */
    static final int MAX_TIME_CHARS = 64;

    private ObjectTimes() {
    }

    /** An RFC 3339 timestamp, when present, of a sane length, and within {@link Instant}'s range in milliseconds. */
    static Optional<Long> rfc3339(String text) {
        if (text == null || text.isBlank() || text.length() > MAX_TIME_CHARS) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(text).toEpochMilli());
        } catch (DateTimeException | ArithmeticException unreadable) {
            return Optional.empty();
        }
    }

    /** Unix seconds as HAMi writes them (digits only), when they fit in milliseconds. */
    static Optional<Long> unixSeconds(String text) {
        if (text == null || text.isEmpty() || text.length() > 18) {
            return Optional.empty();
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return Optional.empty();
            }
        }
        // 18 digits at most: the product still fits a long.
        return Optional.of(Long.parseLong(text) * 1000L);
    }
}
