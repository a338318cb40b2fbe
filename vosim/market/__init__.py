"""The world the agents act in: nodes, prices, slots, workloads. No Mesa imports here."""
