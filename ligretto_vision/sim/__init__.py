"""The simulated table: bots that play by the rules, for the default table, tests and training renders."""
from ligretto_vision.sim.table import BotStyle, SimTable, TableState

__all__ = ["BotStyle", "SimTable", "TableState"]
