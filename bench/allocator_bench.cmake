# allocator_bench measures the lease module's allocator.
target_link_libraries(${bench_target} PRIVATE landlord_lease)
