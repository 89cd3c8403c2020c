"""Tracking the centre piles over time: each pile's place, cards and id for its whole life."""
from ligretto_vision.track.piles import PileTracker, TrackedCard, TrackedPile

__all__ = ["PileTracker", "TrackedCard", "TrackedPile"]
