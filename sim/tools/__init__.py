"""User tools on top of the kernel: ``compare`` (which strategy suits a pattern and stream),
``calibrate`` (this machine's unit costs) and ``match_io`` (matches as JSON lines)."""
