"""Rules about PyPTO programs (`import pypto.language as pl`): the LowerPipelineLoops checks."""
