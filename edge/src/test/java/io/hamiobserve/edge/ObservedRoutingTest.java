package io.hamiobserve.edge;

import io.helidon.webserver.http.HttpRouting;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The routing builder a server is given: it hands out the routing built already, and takes nothing more. */
class ObservedRoutingTest {
    private final ObservedRouting routing = new ObservedRouting(rules -> rules.get("/metrics",
            (request, response) -> response.send("ok")));

    @Test
    void theBuilderBuildsTheObservedRoutingItself() {
        HttpRouting.Builder builder = routing.builder();
        assertSame(routing, builder.build());
        assertSame(routing, builder.get());
        assertSame(builder, builder.identity());
        assertFalse(Proxy.isProxyClass(builder.getClass()),
                "a class of its own: a proxy class is generated at the start, on the way to the first answer");
    }

    @Test
    void routesAddedToTheBuiltRoutingAreRefusedWithTheReason() {
        HttpRouting.Builder builder = routing.builder();
        UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                () -> builder.get("/other", (request, response) -> response.send("no")));
        assertTrue(refused.getMessage().contains("the routing is built already"), refused.getMessage());
        assertThrows(UnsupportedOperationException.class, builder::copy);
        assertThrows(UnsupportedOperationException.class, () -> builder.addFilter((chain, request, response) -> chain.proceed()));
    }
}
