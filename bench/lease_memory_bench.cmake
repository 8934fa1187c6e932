target_link_libraries(${bench_target} PRIVATE landlord_engine landlord_lease)
