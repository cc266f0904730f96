"""``cepsim compare``: every evaluation strategy on one pattern and one stream, priced and queued.

``strategies`` (which strategies exist and what each can evaluate), ``model`` (the run and
result types, ranking, rows and the terminal table), ``core`` (run, check and queue the
strategies), ``remote`` (the EIRES strategies for ``REMOTE[...]`` patterns), ``report``
(``compare.md``, the figures and ``--out``).  Imports go one way: strategies, model < report <
remote < core.
"""
