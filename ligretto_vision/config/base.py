"""The base of every config section: unknown keys are refused, so a typo never silently does nothing."""
from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
