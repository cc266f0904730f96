"""cepsim workloads: event streams for experiments.

``workloads.loaders`` reads real data files (Metastock stock updates, the DEBS 2013 soccer
sensor stream, generic CSV/Parquet with a declared schema) into validated
``engines.stream.EventStream`` objects; bad files raise ``engines.errors.StreamError`` naming
the file, line, field and fix.  Synthetic generators for each paper live beside it.
"""
