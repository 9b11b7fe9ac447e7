package io.hamiobserve.domain;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * When each of a changing set of things was first seen, kept between readings: what gives a
 * reading that has no moment of its own (a process on a card outside every share) an age. A thing
 * absent from one reading is forgotten, so the map never holds more than the last reading did;
 * one that comes back starts again. Thread-safe (concurrent scrapes).
 *
 * @param <K> the thing's identity, with equals and hashCode
 */
public final class FirstSeen<K> {
    private Map<K, Long> seen = new HashMap<>();

    /**
     * Records a reading: {@code present} are there at {@code nowEpochMillis}.
     *
     * @return each present thing's first moment, in milliseconds; never later than now
     */
    public synchronized Map<K, Long> observe(Collection<K> present, long nowEpochMillis) {
        Map<K, Long> next = new HashMap<>(Math.max(4, present.size() * 2));
        for (K key : present) {
            Long first = seen.get(key);
            // A clock that stepped back makes the first moment now, never an age below zero.
            next.put(key, first == null || first > nowEpochMillis ? nowEpochMillis : first);
        }
        seen = next;
        return Map.copyOf(next);
    }
}
