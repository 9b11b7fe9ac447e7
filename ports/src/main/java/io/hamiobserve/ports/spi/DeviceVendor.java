package io.hamiobserve.ports.spi;

import io.hamiobserve.domain.RegisteredCard;

import java.util.List;

/**
 * A device vendor's ledger annotations. HAMi gives each vendor its own node register key and pod
 * allocation key; decoding another vendor's cards is a new provider of this interface
 * ({@code provides io.hamiobserve.ports.spi.DeviceVendor with ...} in its module), not an edit.
 */
public interface DeviceVendor {
    /** A short, stable name, e.g. {@code nvidia}. */
    String name();

    /** The node annotation holding the vendor's registered cards, e.g. {@code hami.io/node-nvidia-register}. */
    String registerAnnotation();

    /** The pod annotation holding the vendor's allocations, e.g. {@code hami.io/vgpu-devices-allocated}. */
    String allocatedAnnotation();

    /**
     * Decodes the register annotation's value. Cards that decode are returned even when others
     * do not; each one that does not is named in {@link Decoded#problems()}.
     */
    Decoded<List<RegisteredCard>> decodeRegistration(String annotationValue);

    /**
     * A decoded value and what could not be decoded.
     *
     * @param value    what decoded
     * @param problems one per skipped part, each with a stable reason
     */
    record Decoded<T>(T value, List<Problem> problems) {
        public Decoded {
            problems = List.copyOf(problems);
        }
    }

    /**
     * Why a part of an annotation was skipped.
     *
     * @param reason a short, stable reason, e.g. {@code bad_json}, {@code wrong_field_count}: the
     *               reason label of the skip count ({@link io.hamiobserve.ports.SkipKey#checkWord})
     * @param detail what exactly was wrong, for the log
     */
    record Problem(String reason, String detail) {
        public Problem {
            io.hamiobserve.ports.SkipKey.checkWord("reason", reason);
        }
    }
}
