"""Typings to snapshots: the catalog, snapshot files written, exported, kept and dropped."""
