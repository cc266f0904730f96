"""Figures drawn from stored results only, one module per paper (``paper_figs/<paper>.py``)."""
