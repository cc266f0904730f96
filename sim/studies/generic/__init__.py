"""The generic study: an experiment described entirely by its config, no Python needed."""
