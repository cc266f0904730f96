"""``cepsim compare``: every evaluation strategy on one pattern and one stream, priced and queued.

``strategies`` (which strategies exist and what each can evaluate), ``core`` (run, check and
queue them), ``remote`` (the EIRES strategies for ``REMOTE[...]`` patterns), ``report`` (the
terminal table, ``compare.md`` and the figures).
"""
