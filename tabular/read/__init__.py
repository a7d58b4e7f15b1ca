"""Bytes to an extraction: which format a file is, its text decoded, its dialect sniffed, its rows and sheets read."""
