"""The job around read, infer and store: the pipeline with its progress, the one pass, fair shares, linked folders."""
