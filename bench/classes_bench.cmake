# classes_bench: the engine with configurations loaded from YAML, replies built to bytes.
target_link_libraries(${bench_target} PRIVATE landlord_engine landlord_config_yaml landlord_wire)
