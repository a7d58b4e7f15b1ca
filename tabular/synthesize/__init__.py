"""knowledge.synthesize's calculation step: a task in words becomes one checked plan, run over
every row, answered with a citation or an abstention a caller can act on (SPEC §4)."""
