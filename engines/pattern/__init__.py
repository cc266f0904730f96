"""Pattern language: AST, parser and a small builder API producing the same AST."""
from engines.pattern.ast import (AbsDiff, And, Attr, Compare, Corr, Event, Not, Or, Pattern,
                                 Remote, RemoteConst, Same, Seq, Window)
from engines.pattern.builder import build_pattern, and_, event, kleene, not_, or_, pred, seq
from engines.pattern.parser import parse_pattern, parse_predicate

__all__ = ["AbsDiff", "And", "Attr", "Compare", "Corr", "Event", "Not", "Or", "Pattern", "Remote",
           "RemoteConst", "Same", "Seq", "Window", "build_pattern", "and_", "event", "kleene", "not_", "or_",
           "pred", "seq", "parse_pattern", "parse_predicate"]
