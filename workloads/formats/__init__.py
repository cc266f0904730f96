"""One module per event-data format, behind ``workloads.loaders`` (the public entry point):
``metastock``, ``soccer``, ``tabular`` (schema-described CSV / Parquet), with ``arrow_fast`` (the
pyarrow fast path of the first two) and ``rawfile`` (reading, field counts, precise diagnosis).
"""
