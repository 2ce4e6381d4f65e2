package io.github.kafkareconciler.registry;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.inject.Produces;
import javax.inject.Singleton;

/**
 * The one bean the excluded config-index extension produced at build time: the list of settings that may be
 * changed at runtime. The test registry has none.
 */
public class EmptyDynamicConfig {

    @Produces
    @Singleton
    DynamicConfigPropertyList dynamicConfigPropertyList() {
        return new DynamicConfigPropertyList(List.of());
    }
}
