"""Declared parameters of the generic config-only scenario (``sim.studies.generic.scenario``;
checked by ``sim.experiments.params`` before any point runs).  A key named as ``{name}`` in the
point's ``pattern`` (or in the text of its ``pattern_file``) is a pattern placeholder: accepted
with any value."""
from __future__ import annotations

from sim.experiments.params import Declaration, Family, Param

POINT = Declaration("generic:point", params=(
    Param("pattern", "string", None, "the pattern text (or pattern_file); {name} is replaced "
          "by the point's parameter name"),
    Param("pattern_file", "string", None, "a file holding the pattern text (or pattern)"),
    Param("data", "string", None, "stream source: an event file (or generator)"),
    Param("format", "string", None, "format of data (default: from the extension)",
          choices=("metastock", "soccer", "csv", "parquet")),
    Param("schema", "any", None, "schema of a csv / parquet data file"),
    Param("generator", "string", None, "stream source: a generator of `cepsim list "
          "generators` (or data)"),
    Param("n_events", "int", None, "stream length: the first n_events of data (default all); "
          "required with a generator", low=1),
    Param("stream_seed", "int", 1, "seed of the generated stream"),
    Param("engine", "string", "eager", "engine spec: name and key=value options "
          "(\"chain order=c,b,a\", \"hybrid plan=a,b/c\")"),
    Param("arrival", "string", "poisson", "arrival process: Poisson at rate, or the stream's "
          "own timestamps", choices=("poisson", "replay")),
    Param("rate", "float", None, "Poisson arrival rate (events per virtual second); required "
          "with arrival = \"poisson\"", low=0, low_open=True),
    Param("time_scale", "float", 1.0, "replay: factor on the stream's timestamps", low=0,
          low_open=True),
    Param("profile", "string", None, "cost-profile TOML (default: the packaged "
          "sim/core/profiles/default.toml)"),
), families=(
    Family("gen_", "any", "the generator's own parameter <name> (gen_types = \"A,B,C\")"),
), placeholders=("pattern",), placeholder_files=("pattern_file",))

DECLARATIONS = {d.scenario: d for d in (POINT,)}
