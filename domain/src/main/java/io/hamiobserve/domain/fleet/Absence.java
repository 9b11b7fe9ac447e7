package io.hamiobserve.domain.fleet;

/**
 * Why a figure has no value. Each reason is something an operator can act on or at least
 * understand; none of them is "zero". HAMi WebUI drew missing series as 0 and its users took idle
 * nodes for broken ones and broken exporters for idle cards; here the reason travels with the gap.
 */
public enum Absence {
    /** The series does not exist for this key: nothing reports it. */
    NOT_REPORTED("no series reports this"),
    /** The container holds an allocation but HAMi-Core has written no usage for it yet. */
    NO_USAGE_YET("no usage yet: HAMi-Core reports a container from its first CUDA call on, "
            + "and not at all while the pod is pending"),
    /** The container runs without HAMi-Core (e.g. {@code CUDA_DISABLE_CONTROL=true}). */
    OUTSIDE_HAMI_CORE("runs outside HAMi-Core (CUDA_DISABLE_CONTROL): no per-container accounting; "
            + "its memory is counted as unmanaged on the card"),
    /** The exporter that would report it says its source is failing. */
    SOURCE_FAILING("the exporter reports this source failing"),
    /** No usage endpoint reports the card's node. */
    NO_USAGE_EXPORTER("no usage endpoint reports this node"),
    /** The driver does not report this field for the card (older cards, some vendors). */
    NOT_SUPPORTED("the driver does not report this for the card"),
    /** Too little history to say anything over the window. */
    NOT_ENOUGH_HISTORY("not enough history in the window"),
    /** The card is shared as MIG instances, which HAMi-Core does not account per container. */
    MIG_INSTANCE("MIG instance: not shared through HAMi-Core"),
    /** No ResourceQuota limits the resource in the namespace. */
    NO_QUOTA("no quota: no ResourceQuota limits this in the namespace"),
    /** The exporter's figure means something else than the container's own use (its note says what). */
    DIFFERENT_MEANING("the exporter's figure is not the container's own use (see its note): nothing is derived from it"),
    /** A ratio whose whole is zero or missing. */
    NO_WHOLE("nothing to compare with (the total is zero or missing)"),
    /** A showback row of the fleet's (unallocated, unhealthy): no share holds it. */
    NO_SHARE("no share holds these card-hours"),
    /** A cost of hours on a card model with no price. */
    NO_PRICE("no price for a card model these hours are on (--prices, --price)");

    private final String explanation;

    Absence(String explanation) {
        this.explanation = explanation;
    }

    /** One sentence for a tooltip or a table cell's title. */
    public String explanation() {
        return explanation;
    }
}
