"""The test games of python/tests/games, and the corpus beside the
checkout (../shared/corpus) when it is there."""

import pathlib

import pytest

from conftest import ROOT

GAMES = pathlib.Path(__file__).resolve().parent / "games"
#: Rock, paper, scissors: one simultaneous round.
RPS = GAMES / "rps.gdl"
#: A one-role puzzle: light three lights.
LIGHTS = GAMES / "lights.gdl"

CORPUS = ROOT.parent / "shared" / "corpus"


def corpus(name):
    """A game of ../shared/corpus, or a skip saying it is absent."""
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared corpus beside the checkout)")
    return path
