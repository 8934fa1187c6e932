# sim_memory_bench measures the simulator's core (no sockets).
target_link_libraries(${bench_target} PRIVATE landlord_sim)
