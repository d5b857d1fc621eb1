"""The lab: Solver, Runners, Comparator, replicate, suites and statistics."""
