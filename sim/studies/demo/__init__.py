"""A tiny self-contained study that exercises the experiment machinery without any engine."""
